import { assert } from "chai";
import { ContractFunctionRevertedError, encodeErrorResult, HttpRequestError, RpcRequestError, type PublicClient } from "viem";
import { DomainError } from "../../src/errors.js";
import { authCaptureEscrowAbi } from "../../src/generated/contracts.js";
import { agreedHoldSimulation } from "../../src/holds/escrow-refusals.js";

/** The escrow's FeeAmountOutOfRange, as a node's simulation reports it. */
const refusal = () =>
  new ContractFunctionRevertedError({
    abi: authCaptureEscrowAbi,
    data: encodeErrorResult({ abi: authCaptureEscrowAbi, errorName: "FeeAmountOutOfRange", args: [1n, 600_000n, 600_000n] }),
    functionName: "capture",
  });
const nodeDown = () => new HttpRequestError({ url: "http://node.invalid", details: "connection refused" });

/** Nodes that each answer the simulation their own way (a revert, a pass, or a failure), each at head 100. */
function nodes(answers: Array<"refuses" | "passes" | "fails">): { client: PublicClient; simulate: (c: PublicClient) => Promise<unknown> } {
  const clients = answers.map((answer) => ({ answer, getBlockNumber: async () => 100n }) as unknown as PublicClient);
  // Each node a host of its own: the door counts voices by host (ChainNode.independentAs).
  const chainNodes = {
    nodes: clients.map((client, i) => ({ client, independentAs: `node-${i}.invalid` })),
    size: answers.length,
    quorum: Math.floor(answers.length / 2) + 1,
    setAside: () => {},
  };
  const client = { chainNodes } as unknown as PublicClient;
  const simulate = async (c: PublicClient) => {
    const { answer } = c as unknown as { answer: string };
    if (answer === "refuses") throw refusal();
    if (answer === "fails") throw nodeDown();
    return {};
  };
  return { client, simulate };
}
const notCollected = async () => false;

/** The DomainError `agreedHoldSimulation` throws, or what it returns. */
async function outcome(client: PublicClient, simulate: (c: PublicClient) => Promise<unknown>): Promise<unknown> {
  return agreedHoldSimulation(client, simulate, notCollected).catch((e: unknown) => e);
}

describe("escrow refusals: ESCROW_REFUSED only on a majority's word (the operator's one agreed simulation)", () => {
  it("every node simulates the same revert: 409 ESCROW_REFUSED, the error's name as detail, not retryable", async () => {
    const { client, simulate } = nodes(["refuses", "refuses", "refuses"]);
    const answer = (await outcome(client, simulate)) as DomainError;
    assert.include(answer, { code: "ESCROW_REFUSED", action: "FIX_REQUEST", detail: "FeeAmountOutOfRange" });
    assert.isUndefined(answer.retryAfter);
  });

  it("two of three refuse alike, the third is down: still the escrow's refusal", async () => {
    const { client, simulate } = nodes(["refuses", "fails", "refuses"]);
    assert.include(await outcome(client, simulate), { code: "ESCROW_REFUSED" });
  });

  it("the node read first refuses, the majority let the call pass: it passes (the one node's revert decides nothing)", async () => {
    const { client, simulate } = nodes(["refuses", "passes", "passes"]);
    assert.deepEqual(await outcome(client, simulate), { passes: true });
  });

  it("no majority alike (one refuses, one passes, one down): RPC_BUSY, retryable", async () => {
    const { client, simulate } = nodes(["refuses", "passes", "fails"]);
    const answer = await outcome(client, simulate);
    assert.instanceOf(answer, DomainError);
    assert.include(answer, { code: "RPC_BUSY", action: "RETRY" });
  });

  it("a node's failure is never a refusal: RPC_ERROR, retryable", async () => {
    // One node: its answer alone (no majority to ask).
    const answer = await outcome({} as PublicClient, async () => {
      throw nodeDown();
    });
    assert.include(answer, { code: "RPC_ERROR", action: "RETRY" });
  });

  it("a node that runs out of gas at the ceiling: it needs more than the ceiling, not a refusal", async () => {
    // EDR's words for an eth_call that ran out of the gas it was given (geth's: "out of gas").
    const oog = new RpcRequestError({ body: {}, url: "http://node.invalid", error: { code: -32603, message: "Transaction ran out of gas" } });
    assert.deepEqual(
      await outcome({} as PublicClient, async () => {
        throw oog;
      }),
      { passes: false },
    );
  });
});
