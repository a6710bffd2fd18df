import { assert } from "chai";
import { decodeFunctionData, getAddress, toHex, zeroAddress, type Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { receiveAuthorizationTypedData, tokenDomain } from "../../src/chain/token-authorizations.js";
import type { EscrowSet } from "../../src/deployments.js";
import { authCaptureEscrowAbi } from "../../src/generated/contracts.js";
import { payerAgnosticHash, paymentInfoHash, type PaymentInfo } from "../../src/holds/payment-info.js";
import type { PaymentPayload } from "@x402/core/types";
import { boundSalt } from "../../src/x402/auth-capture-authorizer.js";
import { chargeCompletion, type SignTyped } from "../helpers/auth-capture-spec.js";
import { useService } from "../helpers/service.js";
import { signWithViem } from "../helpers/signers.js";
import { balanceOf } from "../helpers/tx.js";
import { authCaptureRequirements, REPORT_PRICE } from "../helpers/x402-parties.js";

/**
 * x402 auth-capture on every listed escrow set (deployments/<chain>.json's `authCapture`): a payment
 * naming x402's later v1.1 set, with its payload built by hand (no released client signs for that set),
 * is verified and settled at that set's escrow with v1.1's `charge` (`paymentFlow: "authorization"`,
 * the merchant's key its receiver authorizer).
 */
describe("x402 auth-capture on each listed escrow set", function () {
  this.timeout(120_000);
  const h = useService();
  const agent = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const usdc = () => h.service.deployment.token.address;
  const second = (): EscrowSet => h.service.deployment.authCapture![1]!;
  const feeCollector = () => h.service.deployment.parameters.feeCollector;
  const fee = () => (REPORT_PRICE.units * BigInt(h.service.deployment.parameters.feeBps)) / 10_000n;
  const facilitator = (path: "verify" | "settle", body: unknown) => h.api.post(`/x402/${path}`).send(body as object);

  /** Requirements for 0.01 on the facilitator's terms, `extra` changed; the payload signed by hand for `set`. */
  async function paymentFor(set: EscrowSet, extra: Record<string, unknown>, saltNonce = 1n) {
    const kind = h.service.x402.supported().kinds.find((k) => k.scheme === "auth-capture")!;
    const now = Number((await h.chain.publicClient.getBlock()).timestamp);
    const route = { paymentFlow: "authorization", captureMode: undefined, receiverAuthorizer: merchant().address, ...extra };
    const requirements = authCaptureRequirements(kind.extra, { asset: usdc(), payTo: merchant().address, now }, route);
    const salt = boundSalt(merchant().address, zeroAddress, saltNonce);
    const e = requirements.extra as Record<string, number | string>;
    const info: PaymentInfo = {
      operator: getAddress(String(e.captureAuthorizer)),
      payer: agent().address,
      receiver: merchant().address,
      token: usdc(),
      maxAmount: REPORT_PRICE.units,
      preApprovalExpiry: now + 300,
      authorizationExpiry: Number(e.captureDeadline),
      refundExpiry: Number(e.refundDeadline),
      minFeeBps: Number(e.minFeeBps),
      maxFeeBps: Number(e.maxFeeBps),
      feeReceiver: getAddress(String(e.feeRecipient)),
      salt,
    };
    const { chainId, token } = h.service.deployment;
    const authorization = {
      from: info.payer,
      to: set.eip3009Collector,
      value: info.maxAmount,
      validAfter: 0n,
      validBefore: BigInt(info.preApprovalExpiry),
      nonce: payerAgnosticHash(info, chainId, set.escrow) as Hex,
    };
    const signature = await signWithViem(agent(), receiveAuthorizationTypedData(tokenDomain(chainId, token.address, token.eip712), authorization));
    const client = {
      authorization: { ...authorization, value: authorization.value.toString(), validAfter: "0", validBefore: authorization.validBefore.toString() },
      signature,
      salt: toHex(salt, { size: 32 }),
      saltNonce: toHex(saltNonce, { size: 32 }),
    };
    const party = { chainId, escrow: set.escrow, collector: set.eip3009Collector, feeBps: h.service.deployment.parameters.feeBps };
    const sign: SignTyped = (typed) => merchant().signTypedData(typed);
    const completion = await chargeCompletion(party, requirements, { payload: client } as unknown as PaymentPayload, info.maxAmount, sign);
    const payload = route.paymentFlow === "authorization" ? { ...client, ...completion } : client;
    const body = { x402Version: 2, paymentPayload: { x402Version: 2, accepted: requirements, payload }, paymentRequirements: requirements };
    return { body, info, hash: paymentInfoHash(info, chainId, set.escrow) };
  }

  it("a requirement naming the second set is verified and settled there: v1.1's charge (0xc449d17c) with the exact fee amount", async () => {
    const set = second();
    assert.notEqual(set.escrow, h.service.deployment.authCapture![0]!.escrow);
    const { body, hash } = await paymentFor(set, { authCaptureEscrow: set.escrow });
    assert.deepInclude((await facilitator("verify", body)).body, { isValid: true, payer: agent().address });
    const before = await Promise.all([merchant().address, feeCollector()].map((a) => balanceOf(h.chain, usdc(), a)));
    const settled = await facilitator("settle", body);
    assert.include(settled.body, { success: true }, JSON.stringify(settled.body));
    const tx = await h.chain.publicClient.getTransaction({ hash: settled.body.transaction as Hex });
    assert.equal(getAddress(tx.to!), set.escrow, "sent to the set the requirement names");
    assert.equal(tx.input.slice(0, 10), "0xc449d17c");
    assert.deepEqual(decodeFunctionData({ abi: authCaptureEscrowAbi, data: tx.input }).args.slice(2), [
      set.eip3009Collector,
      body.paymentPayload.payload.signature,
      fee(),
      feeCollector(),
    ]);
    const after = await Promise.all([merchant().address, feeCollector()].map((a) => balanceOf(h.chain, usdc(), a)));
    assert.deepEqual([after[0]! - before[0]!, after[1]! - before[1]!], [REPORT_PRICE.units - fee(), fee()]);
    const [collected, , refundable] = await h.chain.publicClient.readContract({
      address: set.escrow,
      abi: authCaptureEscrowAbi,
      functionName: "paymentState",
      args: [hash],
    });
    assert.deepEqual([collected, refundable], [true, REPORT_PRICE.units]);
  });

  it("a requirement naming no escrow is settled at the v1.1 set whose collector the authorization pays", async () => {
    const set = second();
    const { body } = await paymentFor(set, { authCaptureEscrow: undefined }, 2n);
    assert.notProperty(body.paymentRequirements.extra, "authCaptureEscrow");
    const settled = await facilitator("settle", body);
    assert.include(settled.body, { success: true }, JSON.stringify(settled.body));
    const tx = await h.chain.publicClient.getTransaction({ hash: settled.body.transaction as Hex });
    assert.equal(getAddress(tx.to!), set.escrow);
  });

  it("refuses an escrow the deployment does not list, an authorization to a collector none lists, and an escrow flow off the holds' set", async () => {
    const set = second();
    const cases: Array<[Record<string, unknown>, EscrowSet, string]> = [
      [{ authCaptureEscrow: "0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff" }, set, "invalid_auth_capture_evm_extra"],
      [{ authCaptureEscrow: undefined }, { ...set, eip3009Collector: merchant().address }, "invalid_auth_capture_evm_token_collector_mismatch"],
      [{ authCaptureEscrow: set.escrow, paymentFlow: "escrow", captureMode: "sync" }, set, "invalid_auth_capture_evm_extra"],
    ];
    for (const [extra, signedFor, reason] of cases) {
      const { body } = await paymentFor(signedFor, extra, 3n);
      assert.include((await facilitator("verify", body)).body, { isValid: false, invalidReason: reason }, JSON.stringify(extra));
    }
  });
});
