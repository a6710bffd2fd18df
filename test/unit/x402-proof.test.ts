import { assert } from "chai";
import { encodeAbiParameters, encodeEventTopics, erc20Abi, getAddress, type Address, type Hex, type Log, type TransactionReceipt } from "viem";
import { fiatTokenAbi } from "../../src/generated/contracts.js";
import { authorizationPaidIn, authorizationTransfer } from "../../src/x402/proof.js";

const TOKEN = "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as Address;
const PAYER = "0x00000000000000000000000000000000000000a1" as Address;
const RECEIVER = "0x00000000000000000000000000000000000000b2" as Address;
const N1 = `0x${"01".repeat(32)}` as Hex;
const N2 = `0x${"02".repeat(32)}` as Hex;

const used = (nonce: Hex): Pick<Log, "topics" | "data"> => ({
  topics: encodeEventTopics({ abi: fiatTokenAbi, eventName: "AuthorizationUsed", args: { authorizer: PAYER, nonce } }) as Log["topics"],
  data: "0x",
});
const transfer = (from: Address, to: Address, value: bigint): Pick<Log, "topics" | "data"> => ({
  topics: encodeEventTopics({ abi: erc20Abi, eventName: "Transfer", args: { from, to } }) as Log["topics"],
  data: encodeAbiParameters([{ type: "uint256" }], [value]),
});
const receipt = (logs: Pick<Log, "topics" | "data">[]): TransactionReceipt =>
  ({ logs: logs.map((l, i) => ({ ...l, address: TOKEN, logIndex: i })) }) as unknown as TransactionReceipt;

describe("x402 proof: an authorization's own transfer", () => {
  it("accepts the transfer USDC makes right after marking the nonce used", () => {
    const r = receipt([used(N1), transfer(PAYER, RECEIVER, 10_000n)]);
    assert.isTrue(authorizationPaidIn(r, { token: TOKEN, payer: PAYER, nonce: N1, to: RECEIVER, amount: 10_000n }));
    assert.deepEqual(authorizationTransfer(r, TOKEN, N1), { from: getAddress(PAYER), to: getAddress(RECEIVER), value: 10_000n });
  });

  it("one plain transfer in the transaction proves no authorization that moved nothing to the receiver: nonces used with zero-value transfers to the payer itself", () => {
    // The attack: each nonce the merchant was shown is used by another authorization (to the payer, value 0),
    // and one plain transfer of the price goes to the receiver in the same transaction.
    const r = receipt([used(N1), transfer(PAYER, PAYER, 0n), used(N2), transfer(PAYER, PAYER, 0n), transfer(PAYER, RECEIVER, 10_000n)]);
    for (const nonce of [N1, N2]) {
      assert.isFalse(authorizationPaidIn(r, { token: TOKEN, payer: PAYER, nonce, to: RECEIVER, amount: 10_000n }));
      assert.notEqual(authorizationTransfer(r, TOKEN, nonce)?.to, RECEIVER);
    }
  });

  it("a cancelled nonce (no transfer after it) moved nothing", () => {
    const r = receipt([used(N1)]);
    assert.isNull(authorizationTransfer(r, TOKEN, N1));
  });
});
