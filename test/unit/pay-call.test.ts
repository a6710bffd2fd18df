import { assert } from "chai";
import { decodeFunctionData, type Hex } from "viem";
import { splitterAbi } from "../../src/generated/contracts.js";
import { authorizationCall } from "../../src/checkout/flows/pay-call.js";

describe("the checkout's one-transaction call (authorizationCall)", () => {
  const base = {
    token: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
    payer: "0x00000000000000000000000000000000000000a1",
    recipient: "0x00000000000000000000000000000000000000b2",
    amount: 5_000_000n,
    reference: `0x${"11".repeat(32)}`,
    validBefore: 4_000_000_000n,
  } as const;
  const eoaSignature = `0x${"22".repeat(32)}${"33".repeat(32)}1b` as Hex;
  const decode = (data: Hex) => decodeFunctionData({ abi: splitterAbi, data });

  it("an EOA's 65-byte signature goes as (v, r, s) through payWithAuthorization", () => {
    const call = decode(authorizationCall({ ...base, signature: eoaSignature }, false));
    assert.equal(call.functionName, "payWithAuthorization");
    assert.deepEqual(call.args!.slice(7), [27, `0x${"22".repeat(32)}`, `0x${"33".repeat(32)}`]);
  });

  it("a smart wallet (address with code), or any signature that is not 65 bytes, goes as bytes through payWithAuthorizationSignature", () => {
    const safeSignature = `0x${"44".repeat(130)}` as Hex;
    for (const [signature, hasCode] of [
      [eoaSignature, true],
      [safeSignature, false],
      [safeSignature, true],
      ["0x", true],
    ] as const) {
      const call = decode(authorizationCall({ ...base, signature }, hasCode));
      assert.equal(call.functionName, "payWithAuthorizationSignature");
      assert.deepEqual(
        call.args!.map((a) => (typeof a === "string" ? a.toLowerCase() : a)),
        [base.token.toLowerCase(), base.payer, base.recipient, base.amount, base.reference, 0n, base.validBefore, signature],
      );
    }
  });
});
