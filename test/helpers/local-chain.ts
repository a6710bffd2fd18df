import { startLocalChain, type LocalChain, type LocalChainOptions } from "../../dev/localchain/harness.js";
import type { Hex } from "viem";

/**
 * A chain whose next block lands well past the wall clock (or past its head) is set back to the wall
 * clock. EDR's revert keeps a clock offset that blocks mined ahead of the wall clock build up (`mine(n)`
 * at a second a block, a Base-like node's bursts at 200 ms a block), so without this each later test's
 * next block lands further ahead, until a buyer's signature, valid for a minute from the wall clock
 * (x402's `validBefore`), has expired on the chain. Only then: a chain left alone keeps the clock its
 * blocks gave it. A test that moves the clock (`advanceTime`) moves it from the pinned timestamp, which
 * would win over an `evm_increaseTime`. Blocks that share a timestamp (`sameSecondBlocks`) leave the
 * next block at the head's second or later, never past the drift allowed.
 */
async function pinNextBlockToWallClock(chain: LocalChain): Promise<void> {
  const [head, next] = await Promise.all([chain.publicClient.getBlock(), chain.publicClient.getBlock({ blockTag: "pending" })]);
  const wall = BigInt(Math.floor(Date.now() / 1000));
  const expected = wall > head.timestamp ? wall : head.timestamp + 1n;
  if (next.timestamp > expected + CLOCK_DRIFT_SECONDS) await chain.testClient.setNextBlockTimestamp({ timestamp: expected });
}

/** How far past the wall clock a test's next block may land before it is set back. */
const CLOCK_DRIFT_SECONDS = 10n;

/**
 * Mocha hooks: one local chain per suite, reverted to its fresh state before every test
 * (snapshot/revert), so each test starts from the same deterministic chain.
 */
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
