import { startLocalChain, type LocalChain, type LocalChainOptions } from "../../dev/localchain/harness.js";
import type { Hex } from "viem";

/**
 * Mocha hooks: one local chain per suite, reverted to its fresh state before every test
 * (snapshot/revert), so each test starts from the same deterministic chain.
 */
/**
 * The next block at the wall clock (or one second after the head, when the head is ahead of it).
 * EDR's revert keeps the clock offset that a test's blocks built up (a Base-like node seals at
 * head + 2 s, a setup mines a block a second faster than the wall), so without this the next block
 * of each later test lands further ahead, until a buyer's signature, valid for a minute from the
 * wall clock (x402's `validBefore`), has expired on the chain.
 */
async function pinNextBlockToWallClock(chain: LocalChain): Promise<void> {
  const head = await chain.publicClient.getBlock();
  const wall = BigInt(Math.floor(Date.now() / 1000));
  await chain.testClient.setNextBlockTimestamp({ timestamp: wall > head.timestamp ? wall : head.timestamp + 1n });
}

export function useLocalChain(options: LocalChainOptions = {}): { readonly chain: LocalChain } {
  let chain: LocalChain | undefined;
  let snapshot: Hex | undefined;
  before(async function () {
    this.timeout(120_000);
    chain = await startLocalChain(options);
    snapshot = await chain.snapshot();
  });
  beforeEach(async () => {
    await chain!.revert(snapshot!);
    await pinNextBlockToWallClock(chain!);
    snapshot = await chain!.snapshot();
  });
  after(async () => {
    await chain?.close();
  });
  return {
    get chain() {
      if (!chain) throw new Error("local chain not started");
      return chain;
    },
  };
}
