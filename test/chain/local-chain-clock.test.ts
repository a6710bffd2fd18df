import { assert } from "chai";
import { useLocalChain } from "../helpers/local-chain.js";

// Tests that move the chain's clock (a watch's end, a subscription's period, an intent's expiry) rely
// on advanceTime moving it: a block that lands where it would have anyway passes for a block still
// inside the window, and the test checks the wrong side of it.
describe("the local chain's clock as tests move it (advanceTime)", function () {
  this.timeout(120_000);
  const local = useLocalChain({ port: 0, fork: null });
  const head = () => local.chain.publicClient.getBlock();
  const pending = () => local.chain.publicClient.getBlock({ blockTag: "pending" });

  it("mines the next block the given seconds after the timestamp it would have had", async () => {
    const before = await pending();
    await local.chain.advanceTime(3600);
    assert.isAtLeast(Number((await head()).timestamp), Number(before.timestamp) + 3600);
  });

  it("moves the chain by the given seconds when the next block's timestamp was pinned (as the clock helper pins it between tests)", async () => {
    const pinned = (await head()).timestamp + 1n;
    await local.chain.testClient.setNextBlockTimestamp({ timestamp: pinned });
    await local.chain.advanceTime(7200);
    assert.equal((await head()).timestamp, pinned + 7200n);
  });
});
