import { assert } from "chai";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { AuthCaptureEvmScheme } from "@x402/evm/auth-capture/client";
import { x402Client } from "@x402/fetch";
import { parseGwei, parseSignature, type Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { EIP712_DOMAIN_TYPE, tokenDomain } from "../../src/chain/token-authorizations.js";
import { fiatTokenAbi } from "../../src/generated/contracts.js";
import { useService } from "../helpers/service.js";
import { until } from "../helpers/until.js";
import { eoaSigner, REPORT_PRICE, X402_NETWORK } from "../helpers/x402-parties.js";

/** x402 `auth-capture` against payers who make the relayer pay for escrow calls that revert (DESIGN v7, "x402 auth-capture"). */
describe("x402 auth-capture: attacks", function () {
  this.timeout(120_000);
  // Blocks ordered by tip: the payer's own transaction can be mined before the escrow call it races.
  const h = useService({}, { chain: { mempoolOrder: "priority" } });
  const agent = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const stranger = () => h.chain.accounts[LOCAL_ROLES.firstUser + 2]!;
  const usdc = () => h.service.deployment.token.address;
  const facilitator = (path: "verify" | "settle", body: unknown) => h.api.post(`/x402/${path}`).send(body as object);

  function requirements(payTo: string = merchant().address, extra: Record<string, unknown> = {}): PaymentRequirements {
    const kind = h.service.x402.supported().kinds.find((k) => k.scheme === "auth-capture")!;
    const now = Math.floor(Date.now() / 1000);
    return {
      scheme: "auth-capture",
      network: X402_NETWORK,
      amount: REPORT_PRICE.units.toString(),
      asset: usdc(),
      payTo,
      maxTimeoutSeconds: 300,
      extra: { ...kind.extra, captureMode: "deferred", captureDeadline: now + 900, refundDeadline: now + 900, ...extra },
    };
  }
  async function paid(payTo?: string, extra: Record<string, unknown> = {}) {
    const r = requirements(payTo, extra);
    const client = new x402Client().register(X402_NETWORK, new AuthCaptureEvmScheme(eoaSigner(agent(), h.chain.publicClient)));
    const p: PaymentPayload = await client.createPaymentPayload({ x402Version: 2, resource: { url: "http://merchant.test/report" }, accepts: [r] } as never);
    return { x402Version: 2, paymentPayload: p, paymentRequirements: r };
  }

  it("a payer whose escrow call reverted on chain (it cancelled its authorization under the call) is refused for a while: the relayer pays once", async () => {
    const relayer = h.service.holdOperator!.operator!;
    const { publicClient, testClient } = h.chain;
    const first = await paid();
    assert.include((await facilitator("verify", first)).body, { isValid: true });
    await testClient.setAutomine(false);
    const nonce = await publicClient.getTransactionCount({ address: relayer });
    const settling = facilitator("settle", first).then((r) => r);
    await until(async () => (await publicClient.getTransactionCount({ address: relayer, blockTag: "pending" })) > nonce, "the escrow call in the pool", {
      everyMs: 20,
    });
    // The payer cancels the authorization with a higher tip: mined first, the escrow call reverts.
    const { deployment } = h.service;
    const authorizationNonce = (first.paymentPayload.payload as { authorization: { nonce: Hex } }).authorization.nonce;
    const cancel = await agent().signTypedData({
      domain: tokenDomain(deployment.chainId, usdc(), deployment.token.eip712),
      types: {
        EIP712Domain: EIP712_DOMAIN_TYPE,
        CancelAuthorization: [
          { name: "authorizer", type: "address" },
          { name: "nonce", type: "bytes32" },
        ],
      },
      primaryType: "CancelAuthorization",
      message: { authorizer: agent().address, nonce: authorizationNonce },
    } as never);
    const { v, r, s } = parseSignature(cancel);
    await h.chain.wallet(stranger()).writeContract({
      address: usdc(),
      abi: fiatTokenAbi,
      functionName: "cancelAuthorization",
      args: [agent().address, authorizationNonce, Number(v), r, s],
      gas: 200_000n,
      maxPriorityFeePerGas: parseGwei("100"),
      maxFeePerGas: parseGwei("200"),
      chain: null,
      account: stranger(),
    } as never);
    await testClient.mine({ blocks: 1 });
    await testClient.setAutomine(true);
    const reverted = await settling;
    assert.include(reverted.body, { success: false }, JSON.stringify(reverted.body));

    const again = await paid();
    const before = await publicClient.getTransactionCount({ address: relayer });
    const verified = await facilitator("verify", again);
    assert.include(verified.body, { isValid: false, invalidReason: "invalid_transaction_state" }, JSON.stringify(verified.body));
    const refused = await facilitator("settle", again);
    assert.include(refused.body, { success: false, errorReason: "invalid_transaction_state" }, JSON.stringify(refused.body));
    assert.equal(await publicClient.getTransactionCount({ address: relayer }), before, "the relayer sent nothing more for this payer");
  });

  it("a payTo that could never spend what it receives, or would make the service hold funds, is refused before anything is sent", async () => {
    const { deployment } = h.service;
    const relayer = h.service.holdOperator!.operator!;
    const before = await h.chain.publicClient.getTransactionCount({ address: relayer });
    for (const payTo of [
      deployment.authCapture![0]!.escrow,
      deployment.authCapture![0]!.eip3009Collector,
      relayer,
      usdc(),
      deployment.contracts.Splitter.address,
    ]) {
      const body = await paid(payTo);
      const verified = await facilitator("verify", body);
      assert.include(verified.body, { isValid: false, invalidReason: "invalid_payment_requirements" }, `${payTo}: ${JSON.stringify(verified.body)}`);
      const settled = await facilitator("settle", body);
      assert.include(settled.body, { success: false, errorReason: "invalid_payment_requirements" }, payTo);
    }
    assert.equal(await h.chain.publicClient.getTransactionCount({ address: relayer }), before, "the relayer sent nothing");
  });

  it("a capture or refund deadline past a hold's limits is refused: the agent's funds are not held in escrow for years", async () => {
    const latest = await h.chain.publicClient.getBlock();
    const now = Number(latest.timestamp);
    for (const deadlines of [
      { captureDeadline: now + 31 * 86_400, refundDeadline: now + 31 * 86_400 },
      { captureDeadline: now + 900, refundDeadline: now + 366 * 86_400 },
    ]) {
      const body = await paid(merchant().address, deadlines);
      const verified = await facilitator("verify", body);
      assert.include(verified.body, { isValid: false, invalidReason: "invalid_auth_capture_evm_extra" }, JSON.stringify(deadlines));
      assert.include((await facilitator("settle", body)).body, { success: false, errorReason: "invalid_auth_capture_evm_extra" });
    }
  });
});
