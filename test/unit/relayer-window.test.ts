import { assert } from "chai";
import { serializeTransaction, type Hex, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { POOL_WINDOW, Relayer } from "../../src/recurring/relayer.js";

// A transaction past the pool's window is in line for room: its caller is answered at once, not after
// the broadcast round under way, which waits on the node (and a node on the block it is building).
describe("relayer: a transaction past the pool's window", () => {
  const account = privateKeyToAccount(`0x${"39".repeat(32)}`);
  const raw = (nonce: number) =>
    serializeTransaction({ chainId: baseSepolia.id, type: "eip1559", nonce, to: account.address, gas: 21_000n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n });
  const settled = async (p: Promise<unknown>) => Promise.race([p.then(() => true), new Promise((r) => setTimeout(() => r(false), 100))]);

  it("is answered while the round before it still waits on the node; the node's slow answer still holds those within the window", async () => {
    let release!: () => void;
    const nodeBusy = new Promise<void>((r) => (release = r));
    const client = {
      getTransactionCount: async () => 0,
      sendRawTransaction: async () => {
        await nodeBusy;
        return `0x${"00".repeat(32)}` as Hex;
      },
    } as unknown as PublicClient;
    const relayer = new Relayer(client, account, baseSepolia, { paused: false });
    const inWindow = Array.from({ length: POOL_WINDOW }, (_, nonce) => relayer.broadcast(raw(nonce)));
    await new Promise((r) => setTimeout(r, 20)); // the first round is under way, waiting on the node
    const pastWindow = relayer.broadcast(raw(POOL_WINDOW));
    assert.isTrue(await settled(pastWindow), "in line: answered now");
    assert.isFalse(await settled(inWindow[0]!), "sent: answered when the node takes it");
    assert.equal(relayer.unsent, POOL_WINDOW + 1, "none taken yet");
    release();
    await Promise.all(inWindow);
  });
});
