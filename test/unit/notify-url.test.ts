import { assert } from "chai";
import { notifyUrlProblem } from "../../src/rules/notify-url.js";

describe("notify_url rules", () => {
  it("accepts public https URLs on the default port, any path and query", () => {
    for (const ok of [
      "https://shop.example.com/hooks/pay?x=1",
      "https://api.merchant.io",
      "https://api.merchant.io:443/h",
      `https://m.com/${"a".repeat(512 - 14)}`,
    ]) {
      assert.isNull(notifyUrlProblem(ok), ok);
    }
  });

  it("refuses http, other ports, IP hosts, credentials, local names and anything over 512 characters", () => {
    const table: Array<[string, string]> = [
      ["http://shop.example.com/h", "not https"],
      ["https://shop.example.com:8443/h", "not the default port"],
      ["https://93.184.216.34/h", "an IP address host"],
      ["https://[2606:4700::1111]/h", "an IP address host"],
      ["https://2130706433/h", "an IP address host"],
      ["https://0x7f.1/h", "an IP address host"],
      ["https://user:pass@shop.example.com/h", "carries a user name or password"],
      ["https://user@shop.example.com/h", "carries a user name or password"],
      ["https://localhost/h", "not a public DNS name"],
      ["https://intranet/h", "not a public DNS name"],
      ["https://printer.local/h", "not a public DNS name"],
      ["not a url", "not a URL"],
      [`https://m.com/${"a".repeat(513 - 14)}`, "longer than 512 characters"],
    ];
    for (const [url, problem] of table) assert.equal(notifyUrlProblem(url), problem, url);
  });
});
