import { assert } from "chai";
import { keccak256, parseTransaction, recoverTransactionAddress, type Hex, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { Relayer } from "../../src/recurring/relayer.js";

// The relayer signs what viem's own signTransaction signs, byte for byte, and names it by its hash:
// a node takes the transaction, and the hash recorded before the broadcast is the one it mines.
describe("relayer: a signed transaction", () => {
  const account = privateKeyToAccount(`0x${"39".repeat(32)}`);
  const relayer = new Relayer({} as PublicClient, account, baseSepolia, { paused: false });
  // Calldata from empty to a large batch's (tens of kilobytes), odd lengths too.
  const calls = [0, 1, 4, 131, 1_000, 40_000].map((bytes, i) => ({
    to: `0x${(i + 1).toString(16).padStart(40, "0")}` as Hex,
    data: `0x${Array.from({ length: bytes }, (_, j) => ((j * 7 + i) % 256).toString(16).padStart(2, "0")).join("")}` as Hex,
    gas: 21_000n + BigInt(bytes) * 16n,
    maxFeePerGas: 10n ** 9n + BigInt(i),
    maxPriorityFeePerGas: 10n ** 6n * BigInt(i),
  }));

  it("is viem's signTransaction's bytes, its hash is keccak256 of them, and it recovers to the relayer", async () => {
    for (const [nonce, call] of calls.entries()) {
      const signed = await relayer.sign(call, nonce * 1_000);
      const expected = await account.signTransaction({ chainId: baseSepolia.id, type: "eip1559", nonce: nonce * 1_000, value: 0n, ...call });
      assert.equal(signed.raw, expected, `calldata of ${(call.data.length - 2) / 2} bytes`);
      assert.equal(signed.hash, keccak256(expected));
      assert.equal(await recoverTransactionAddress({ serializedTransaction: signed.raw as never }), account.address);
      const parsed = parseTransaction(signed.raw);
      assert.deepInclude(parsed, { nonce: nonce * 1_000, to: call.to, gas: call.gas, chainId: baseSepolia.id });
    }
  });
});
