import { assert } from "chai";
import { isPublicAddress } from "../../src/webhooks/target.js";

describe("webhook target addresses", () => {
  it("accepts public addresses only", () => {
    for (const ip of ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:1.1.1.1"]) assert.isTrue(isPublicAddress(ip), ip);
    for (const ip of [
      "10.0.0.1",
      "172.16.5.4",
      "192.168.1.1",
      "127.0.0.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "::1",
      "fe80::1",
      "fd00::1",
      "::ffff:10.0.0.1",
      "::ffff:127.0.0.1",
      "198.18.0.1",
    ]) {
      assert.isFalse(isPublicAddress(ip), ip);
    }
  });

  it("lets loopback through only with the test switch, and never private ranges", () => {
    assert.isTrue(isPublicAddress("127.0.0.1", true));
    assert.isTrue(isPublicAddress("::1", true));
    assert.isFalse(isPublicAddress("10.0.0.1", true));
    assert.isFalse(isPublicAddress("169.254.169.254", true));
  });
});
