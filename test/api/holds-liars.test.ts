import { assert } from "chai";
import supertest from "supertest";
import { encodeFunctionResult, numberToHex, toFunctionSelector, type Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { authCaptureEscrowAbi } from "../../src/generated/contracts.js";
import type { Service } from "../../src/service.js";
import { serviceReadingFirst } from "../helpers/read-first.js";
import { useService } from "../helpers/service.js";
import { signWithMetaMask } from "../helpers/signers.js";

const PAYMENT_STATE = toFunctionSelector(authCaptureEscrowAbi.find((i) => i.type === "function" && i.name === "paymentState")!);

/**
 * A hold's reads on one node's word (issue 59): three nodes in front of one chain, the one read first
 * lying about what a hold's state, capture and list stand on (its recorded calls' receipts, the
 * escrow's ledger). Each answer is the honest nodes'.
 */
describe("holds: the node read first lies about a hold's receipts and ledger", function () {
  this.timeout(90_000);
  const h = useService({}, { nodes: 3 });
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  afterEach(() => {
    for (const node of h.nodes) node.latencyMs = 0;
  });
  async function post(service: Service, path: string, body: object) {
    return (await supertest(service.app).post(path).send(body)) as supertest.Response & { body: Record<string, unknown> };
  }
  async function ok(service: Service, path: string, body: object) {
    const res = await post(service, path, body);
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
    return res.body as Record<string, unknown> & { tx_hash: Hex };
  }

  /** A hold of 50.00, authorized by the buyer through the honest service, final. */
  async function authorizedHold(): Promise<{ hold: string; checkout: string; authorization: Hex }> {
    const now = Math.floor(h.clock.now() / 1000);
    const created = await ok(h.service, "/v1/holds", {
      recipient: merchant().address,
      amount: "50.00",
      capture_before: now + 3600,
      refund_before: now + 86_400,
    });
    const resolved = await ok(h.service, "/v1/holds/resolve", { hold: created.checkout_token, payer: buyer().address });
    const signature = signWithMetaMask(buyer(), resolved.typed_data as never);
    const sent = await ok(h.service, "/v1/holds/authorize", { hold: created.checkout_token, payer: buyer().address, signature });
    await h.chain.publicClient.waitForTransactionReceipt({ hash: sent.tx_hash });
    await h.chain.mine(6);
    await h.service.holdOperator!.follow();
    const state = await ok(h.service, "/v1/holds/state", { hold: created.hold });
    assert.deepInclude(state, { state: "AUTHORIZED", capturable_units: "50000000" }, "the honest nodes' state");
    return { hold: created.hold as string, checkout: created.checkout_token as string, authorization: sent.tx_hash };
  }

  it("the state: the authorization's receipt forged reverted, with no logs, by the node read first; the hold is AUTHORIZED all the same", async () => {
    const { hold, authorization } = await authorizedHold();
    h.nodes[0]!.rewrite = (request, result) => {
      const r = result as { transactionHash?: Hex } | null;
      if (request.method !== "eth_getTransactionReceipt" || r?.transactionHash !== authorization) return result;
      return { ...r, status: "0x0", logs: [] };
    };
    const built = await serviceReadingFirst(h, h.nodes[0]!);
    const state = await ok(built, "/v1/holds/state", { hold });
    assert.isAtLeast(h.nodes[0]!.lied("eth_getTransactionReceipt"), 1, "the state's read was served the forged receipt");
    assert.deepInclude(state, { state: "AUTHORIZED", payer: buyer().address, authorized_units: "50000000", capturable_units: "50000000" });
    assert.deepEqual(
      (state.steps as Array<{ step: string; final: boolean }>).map((s) => [s.step, s.final]),
      [["authorized", true]],
    );
  });

  it("a capture below the smallest payment: the node read first says the escrow holds exactly that much; refused, as the majority's ledger holds 50.00", async () => {
    const { hold } = await authorizedHold();
    h.nodes[0]!.rewrite = (request, result) => {
      const call = request.params?.[0] as { data?: string; input?: string } | undefined;
      if (request.method !== "eth_call" || !(call?.data ?? call?.input ?? "").startsWith(PAYMENT_STATE)) return result;
      return encodeFunctionResult({ abi: authCaptureEscrowAbi, functionName: "paymentState", result: [true, 5_000n, 0n] });
    };
    const built = await serviceReadingFirst(h, h.nodes[0]!);
    const res = await post(built, "/v1/holds/capture", { hold, amount: "0.005" });
    assert.isAtLeast(h.nodes[0]!.lied("eth_call"), 1, "the capture's check was served the forged ledger");
    assert.equal(res.body.error, "AMOUNT_OUT_OF_BOUNDS", JSON.stringify(res.body));
  });

  it("the list: the node read first says every listed hold was captured whole; each is listed as the majority's ledger holds it", async () => {
    const { hold } = await authorizedHold();
    h.nodes[0]!.rewrite = (request, result) => {
      const call = request.params?.[0] as { data?: string; input?: string } | undefined;
      if (request.method !== "eth_call" || !(call?.data ?? call?.input ?? "").startsWith(PAYMENT_STATE)) return result;
      return encodeFunctionResult({ abi: authCaptureEscrowAbi, functionName: "paymentState", result: [true, 0n, 50_000_000n] });
    };
    const built = await serviceReadingFirst(h, h.nodes[0]!);
    const listed = await ok(built, "/v1/holds/list", { recipient: merchant().address });
    assert.isAtLeast(h.nodes[0]!.lied("eth_call"), 1, "the list was served the forged ledger");
    const holds = listed.holds as Array<Record<string, unknown>>;
    assert.lengthOf(holds, 1);
    assert.deepInclude(holds[0]!, { state: "AUTHORIZED", captured_units: "0", capturable_units: "50000000" }, `hold ${hold}`);
  });

  it("a capture where the store recorded no call: the node read first plays 20 blocks behind, before the authorization; the capture is sent", async () => {
    const { hold } = await authorizedHold();
    // Another instance's store, say: no recorded call, so the payer is searched for in the token's record (payerOf).
    await h.service.database.query("DELETE FROM hold_transactions");
    h.nodes[0]!.lagBlocks = 20;
    const built = await serviceReadingFirst(h, h.nodes[0]!);
    const res = await post(built, "/v1/holds/capture", { hold, amount: "10.00" });
    assert.isAtLeast(h.nodes[0]!.calls.get("eth_blockNumber") ?? 0, 1, "the node 20 blocks behind was asked its head");
    assert.deepInclude(res.body, { operation: "capture", status: "SENT" }, JSON.stringify(res.body));
  });

  it("past capture_before, the buyer's reclaim: the node read first says the escrow still holds it all capturable; the hold is RECLAIMED, as a majority holds", async () => {
    const { hold } = await authorizedHold();
    await h.chain.advanceTime(3600);
    h.clock.advance(3600);
    const expired = (await ok(h.service, "/v1/holds/state", { hold })) as unknown as { state: string; reclaim: { to: Hex; data: Hex } };
    assert.equal(expired.state, "EXPIRED");
    const hash = await h.chain.wallet(buyer()).sendTransaction({ to: expired.reclaim.to, data: expired.reclaim.data, account: buyer(), chain: h.chain.chain });
    await h.chain.publicClient.waitForTransactionReceipt({ hash });
    await h.chain.mine(6);
    h.nodes[0]!.rewrite = (request, result) => {
      const call = request.params?.[0] as { data?: string; input?: string } | undefined;
      if (request.method !== "eth_call" || !(call?.data ?? call?.input ?? "").startsWith(PAYMENT_STATE)) return result;
      return encodeFunctionResult({ abi: authCaptureEscrowAbi, functionName: "paymentState", result: [true, 50_000_000n, 0n] });
    };
    const built = await serviceReadingFirst(h, h.nodes[0]!);
    const state = await ok(built, "/v1/holds/state", { hold });
    assert.isAtLeast(h.nodes[0]!.lied("eth_call"), 1, "the reclaim search was served the forged ledger");
    assert.deepInclude(state, { state: "RECLAIMED", reclaimed_units: "50000000", capturable_units: "0", reclaim: null });
  });

  it("a refund of a capture: the node read first shifts the refund's receipt a block on; the refund is REFUNDED, as a majority holds it", async () => {
    const { hold } = await authorizedHold();
    const captured = await ok(h.service, "/v1/holds/capture", { hold, amount: "30.00" });
    await h.chain.publicClient.waitForTransactionReceipt({ hash: captured.tx_hash });
    await h.chain.mine(6);
    await h.service.holdOperator!.follow();
    const prepared = (await ok(h.service, "/v1/holds/refund", { hold, amount: "10.00" })) as unknown as { call: { to: Hex; data: Hex } };
    const refund = await h.chain.wallet(merchant()).sendTransaction({ ...prepared.call, account: merchant(), chain: h.chain.chain });
    const mined = await h.chain.publicClient.waitForTransactionReceipt({ hash: refund });
    await h.chain.mine(6);
    h.nodes[0]!.rewrite = (request, result) => {
      const r = result as { transactionHash?: Hex; blockNumber: Hex } | null;
      if (request.method !== "eth_getTransactionReceipt" || r?.transactionHash !== refund) return result;
      return { ...r, blockNumber: numberToHex(BigInt(r.blockNumber) + 1n) };
    };
    const built = await serviceReadingFirst(h, h.nodes[0]!);
    const res = await post(built, "/v1/holds/refund", { hold, amount: "10.00", refund_tx_hash: refund });
    assert.isAtLeast(h.nodes[0]!.lied("eth_getTransactionReceipt"), 1, "the refund's receipt was served shifted");
    assert.deepInclude(res.body, { status: "REFUNDED", refund_tx_hash: refund, block_number: mined.blockNumber.toString() }, JSON.stringify(res.body));
  });
});
