import { assert } from "chai";
import fc from "fast-check";
import { keccak256, parseTransaction, recoverTransactionAddress, type Hex, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { Relayer } from "../../src/recurring/relayer.js";

// The relayer signs what viem's own signTransaction signs, byte for byte, and names it by its hash:
// a node takes the transaction, and the hash recorded before the broadcast is the one it mines.
describe("relayer: a signed transaction", () => {
  const account = privateKeyToAccount(`0x${"39".repeat(32)}`);
  const relayer = new Relayer({} as PublicClient, account, baseSepolia, { paused: false });
  // Calldata from empty to a large batch's, across RLP's length forms: one byte below 0x80 (no header),
  // 55 and 56 bytes (short and long header), lengths of one, two and three bytes.
  const calls = [0, 1, 4, 55, 56, 131, 1_000, 40_000, 70_000].map((bytes, i) => ({
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

  it("is viem's bytes for any nonce, fees, gas and calldata", async () => {
    const big = (bits: number) => fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n });
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          nonce: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
          maxFeePerGas: big(128),
          maxPriorityFeePerGas: big(64),
          gas: big(64),
          to: fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${Buffer.from(b).toString("hex")}` as Hex),
          data: fc.uint8Array({ maxLength: 300 }).map((b) => `0x${Buffer.from(b).toString("hex")}` as Hex),
        }),
        async ({ nonce, ...fields }) => {
          // A tip above the fee cap is no transaction (viem refuses it; the relayer's quotes never make one).
          const call = { ...fields, maxPriorityFeePerGas: fields.maxPriorityFeePerGas % (fields.maxFeePerGas + 1n) };
          const signed = await relayer.sign(call, nonce);
          assert.equal(signed.raw, await account.signTransaction({ chainId: baseSepolia.id, type: "eip1559", nonce, value: 0n, ...call }));
        },
      ),
      { numRuns: 150 },
    );
  });
});
