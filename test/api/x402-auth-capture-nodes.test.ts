import { assert } from "chai";
import type { PaymentRequirements } from "@x402/core/types";
import { AuthCaptureEvmScheme } from "@x402/evm/auth-capture/client";
import { x402Client } from "@x402/fetch";
import supertest from "supertest";
import { encodeAbiParameters, encodeEventTopics, getAddress, numberToHex, type AbiEvent, type Address, type Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { authCaptureEscrowAbi, fiatTokenAbi } from "../../src/generated/contracts.js";
import { paymentInfoHash, type PaymentInfo } from "../../src/holds/payment-info.js";
import type { Service } from "../../src/service.js";
import { chargeCompletion } from "../helpers/auth-capture-spec.js";
import { useService } from "../helpers/service.js";
import { serviceReadingFirst } from "../helpers/read-first.js";
import { send } from "../helpers/tx.js";
import { eoaSigner, REPORT_PRICE, X402_NETWORK } from "../helpers/x402-parties.js";

/** An auth-capture success stands on what a majority of the chain's nodes hold, never on the one node that answered first. */
describe("x402 auth-capture: three nodes, one forging", function () {
  this.timeout(90_000);
  let onBroadcast: (() => Promise<void>) | null = null;
  const h = useService(
    {},
    {
      nodes: 3,
      deps: () => ({
        beforeBroadcast: async () => {
          const hook = onBroadcast;
          onBroadcast = null;
          await hook?.();
        },
      }),
    },
  );
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const token = () => h.service.deployment.token.address;
  let built: Service | null = null;
  afterEach(() => {
    built = null;
    onBroadcast = null;
    for (const node of h.nodes) node.latencyMs = 0;
    h.nodes[0]!.rewrite = null;
  });

  /** An `authorization` route's charge, completed with the merchant's Charge consent, for `service`. */
  async function consentedCharge(service: Service) {
    const kind = service.x402.supported().kinds.find((k) => k.scheme === "auth-capture")!;
    const extra = kind.extra as Record<string, string | number>;
    const now = Math.floor(Date.now() / 1000);
    const requirements: PaymentRequirements = {
      scheme: "auth-capture",
      network: X402_NETWORK,
      amount: REPORT_PRICE.units.toString(),
      asset: token(),
      payTo: merchant().address,
      maxTimeoutSeconds: 300,
      extra: { ...extra, paymentFlow: "authorization", receiverAuthorizer: merchant().address, captureDeadline: now + 900, refundDeadline: now + 900 },
    };
    const client = new x402Client().register(X402_NETWORK, new AuthCaptureEvmScheme(eoaSigner(buyer(), h.chain.publicClient)));
    const payload = await client.createPaymentPayload({ x402Version: 2, resource: { url: "http://merchant.test/report" }, accepts: [requirements] } as never);
    const { authorization, salt } = payload.payload as { authorization: { validBefore: string }; salt: Hex };
    const escrow = service.deployment.authCapture![0]!;
    const info: PaymentInfo = {
      operator: getAddress(String(extra.captureAuthorizer)),
      payer: buyer().address,
      receiver: merchant().address,
      token: token(),
      maxAmount: REPORT_PRICE.units,
      preApprovalExpiry: Number(authorization.validBefore),
      authorizationExpiry: now + 900,
      refundExpiry: now + 900,
      minFeeBps: Number(extra.minFeeBps),
      maxFeeBps: Number(extra.maxFeeBps),
      feeReceiver: getAddress(String(extra.feeRecipient)),
      salt: BigInt(salt),
    };
    const hash = paymentInfoHash(info, service.deployment.chainId, escrow.escrow);
    // The merchant's consent to the charge (its receiver authorizer's Charge).
    const party = { chainId: service.deployment.chainId, escrow: escrow.escrow, collector: escrow.eip3009Collector, feeBps: Number(extra.minFeeBps) };
    payload.payload = {
      ...payload.payload,
      ...(await chargeCompletion(party, requirements, payload, info.maxAmount, (typed) => merchant().signTypedData(typed))),
    };
    return { payload, requirements, info, hash, escrow };
  }

  it("a charge that reverted on chain, served by one node as the escrow's PaymentCharged: no success", async () => {
    // The service's reads go to node 0 first (the others 200 ms slower), its ranking asserted.
    built = await serviceReadingFirst(h, h.nodes[0]!);
    const { payload, requirements, info, hash, escrow } = await consentedCharge(built);
    // USDC pauses between the operator's simulation and the mining: the charge reverts on chain.
    onBroadcast = () => send(h.chain, h.chain.usdcRoles.pauser, { address: token(), abi: fiatTokenAbi, functionName: "pause", args: [] }).then(() => {});
    // Node 0 serves the reverted charge as a success holding the escrow's PaymentCharged for this payment.
    const charged = authCaptureEscrowAbi.find((e) => e.type === "event" && e.name === "PaymentCharged") as AbiEvent;
    const args = {
      paymentInfoHash: hash,
      paymentInfo: info,
      amount: info.maxAmount,
      tokenCollector: escrow.eip3009Collector,
      feeAmount: (info.maxAmount * BigInt(info.minFeeBps)) / 10_000n,
      feeReceiver: info.feeReceiver,
    };
    const data = encodeAbiParameters(
      charged.inputs.filter((i) => !i.indexed),
      charged.inputs.filter((i) => !i.indexed).map((i) => args[i.name as keyof typeof args]),
    );
    const topics = encodeEventTopics({ abi: authCaptureEscrowAbi, eventName: "PaymentCharged", args: { paymentInfoHash: hash } });
    h.nodes[0]!.rewrite = (request, result) => {
      const r = result as { status?: Hex; to?: Address; blockHash: Hex; blockNumber: Hex; transactionHash: Hex; transactionIndex: Hex } | null;
      if (request.method !== "eth_getTransactionReceipt" || !r || r.status !== "0x0" || r.to?.toLowerCase() !== escrow.escrow.toLowerCase()) return result;
      const { blockHash, blockNumber, transactionHash, transactionIndex } = r;
      return {
        ...r,
        status: "0x1",
        logs: [{ address: escrow.escrow, topics, data, blockHash, blockNumber, transactionHash, transactionIndex, logIndex: numberToHex(0), removed: false }],
      };
    };
    try {
      const settled = await supertest(built.app).post("/x402/settle").send({ x402Version: 2, paymentPayload: payload, paymentRequirements: requirements });
      assert.isAtLeast(h.nodes[0]!.lied("eth_getTransactionReceipt"), 1, "node 0 served the reverted charge as a success");
      assert.notEqual(settled.body.success, true, JSON.stringify(settled.body));
      assert.include(settled.body, { success: false, errorReason: "invalid_transaction_state" });
    } finally {
      await send(h.chain, h.chain.usdcRoles.pauser, { address: token(), abi: fiatTokenAbi, functionName: "unpause", args: [] });
    }
  });

  it("a settle's escrow call is simulated once, by the operator, agreed at its gas ceiling: no node is asked for an estimate", async () => {
    built = await serviceReadingFirst(h, h.nodes[0]!);
    const { payload, requirements } = await consentedCharge(built);
    for (const node of h.nodes) node.reset();
    const settled = await supertest(built.app).post("/x402/settle").send({ x402Version: 2, paymentPayload: payload, paymentRequirements: requirements });
    assert.include(settled.body, { success: true }, JSON.stringify(settled.body));
    assert.deepEqual(
      h.nodes.map((node) => node.count("eth_estimateGas")),
      [0, 0, 0],
      "the operator's eth_call at the ceiling is the only simulation",
    );
  });
});
