import { assert } from "chai";
import { InternalRpcError, RpcRequestError } from "viem";
import { isNonceGap, isPoolFull } from "../../src/recurring/relayer.js";

/** What a node answers to eth_sendRawTransaction, as viem's transport wraps it. */
const nodeError = (message: string, code = -32000) => new InternalRpcError(new RpcRequestError({ body: {}, error: { code, message }, url: "http://node" }));

describe("node errors, classified by viem's classes", () => {
  it("a nonce above the account's next one is a gap (geth, Hardhat/EDR), whatever the case of the words", () => {
    assert.isTrue(isNonceGap(nodeError("nonce too high")));
    assert.isTrue(isNonceGap(nodeError("Nonce too high. Expected nonce to be 3 but got 5. Note that transactions can't be queued when automining.")));
  });

  it("any other refusal is not a gap: a used nonce, an underpriced replacement, a full pool, a plain error", () => {
    assert.isFalse(isNonceGap(nodeError("nonce too low")));
    assert.isFalse(isNonceGap(nodeError("replacement transaction underpriced")));
    assert.isFalse(isNonceGap(nodeError("txpool is full")));
    assert.isFalse(isNonceGap(new Error("nonce too high")), "only a node's answer, through viem");
  });

  it("a sender's pool slots taken is a full pool (geth, reth, the Base-like dev node); a gap or a used nonce is not", () => {
    assert.isTrue(isPoolFull(nodeError("account limit exceeded")));
    assert.isTrue(isPoolFull(nodeError("txpool is full")));
    assert.isTrue(isPoolFull(nodeError("transaction pool is full for sender, exceeds max account slots")));
    assert.isFalse(isPoolFull(nodeError("nonce too high")));
    assert.isFalse(isPoolFull(nodeError("nonce too low")));
    assert.isFalse(isPoolFull(new Error("account limit exceeded")), "only a node's answer, through viem");
  });
});
