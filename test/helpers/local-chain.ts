import { startLocalChain, type LocalChain, type LocalChainOptions } from "../../dev/localchain/harness.js";
import type { Hex } from "viem";

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
