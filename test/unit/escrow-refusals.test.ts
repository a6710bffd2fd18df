import { assert } from "chai";
import { ContractFunctionRevertedError, encodeErrorResult, HttpRequestError, type PublicClient } from "viem";
import { DomainError } from "../../src/errors.js";
import { authCaptureEscrowAbi } from "../../src/generated/contracts.js";
import { agreedEscrowRefusal } from "../../src/holds/escrow-refusals.js";

/** The escrow's FeeAmountOutOfRange, as a node's simulation reports it. */
const refusal = () =>
  new ContractFunctionRevertedError({
    abi: authCaptureEscrowAbi,
    data: encodeErrorResult({ abi: authCaptureEscrowAbi, errorName: "FeeAmountOutOfRange", args: [1n, 600_000n, 600_000n] }),
    functionName: "capture",
  });
const nodeDown = () => new HttpRequestError({ url: "http://node.invalid", details: "connection refused" });

/** Nodes that each answer the simulation their own way: a revert, a pass, or a failure. */
function nodes(answers: Array<"refuses" | "passes" | "fails">): { client: PublicClient; simulate: (c: PublicClient) => Promise<unknown> } {
  const clients = answers.map((answer) => ({ answer }) as unknown as PublicClient);
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

describe("escrow refusals: ESCROW_REFUSED only on a majority's word", () => {
  it("every node simulates the same revert: 409 ESCROW_REFUSED, the error's name as detail, not retryable", async () => {
    const { client, simulate } = nodes(["refuses", "refuses", "refuses"]);
    const answer = await agreedEscrowRefusal(client, refusal(), simulate, notCollected);
    assert.include(answer, { code: "ESCROW_REFUSED", action: "FIX_REQUEST", detail: "FeeAmountOutOfRange" });
    assert.isUndefined(answer.retryAfter);
  });

  it("two of three refuse alike, the third is down: still the escrow's refusal", async () => {
    const { client, simulate } = nodes(["refuses", "fails", "refuses"]);
    assert.include(await agreedEscrowRefusal(client, refusal(), simulate, notCollected), { code: "ESCROW_REFUSED" });
  });

  it("the node read first refuses, the majority let the call pass: RPC_BUSY, retryable", async () => {
    const { client, simulate } = nodes(["refuses", "passes", "passes"]);
    assert.include(await agreedEscrowRefusal(client, refusal(), simulate, notCollected), { code: "RPC_BUSY", action: "RETRY" });
  });

  it("no majority alike (one refuses, one passes, one down): RPC_BUSY, retryable", async () => {
    const { client, simulate } = nodes(["refuses", "passes", "fails"]);
    const answer = await agreedEscrowRefusal(client, refusal(), simulate, notCollected).catch((e: unknown) => e);
    assert.instanceOf(answer, DomainError);
    assert.include(answer, { code: "RPC_BUSY", action: "RETRY" });
  });

  it("a node's failure is never a refusal: RPC_ERROR, retryable, and no node is asked again", async () => {
    let asked = 0;
    const answer = await agreedEscrowRefusal({} as PublicClient, nodeDown(), async () => asked++, notCollected);
    assert.include(answer, { code: "RPC_ERROR", action: "RETRY" });
    assert.equal(asked, 0);
  });
});
