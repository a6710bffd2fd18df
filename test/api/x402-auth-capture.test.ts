import { assert } from "chai";
import { unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Express } from "express";
import { decodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { AuthCaptureEvmScheme } from "@x402/evm/auth-capture/client";
import { x402Client } from "@x402/fetch";
import { decodeFunctionData, erc20Abi, getAddress, hashTypedData, type Address, type Hex } from "viem";
import { COVERAGE_BUILD } from "../../dev/deploy/build-mode.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { authCaptureEscrowAbi, testSmartAccountAbi } from "../../src/generated/contracts.js";
import { deployTestContract } from "../helpers/deploy.js";
import { paymentInfoHash, type PaymentInfo } from "../../src/holds/payment-info.js";
import { createSafe, deploySafeInfrastructure, safeMessageSignature } from "../helpers/safe.js";
import { useService } from "../helpers/service.js";
import { until } from "../helpers/until.js";
import { balanceOf, send } from "../helpers/tx.js";
import {
  authCaptureAgentFetch,
  authCapturePaywall,
  authCaptureRequirements,
  eoaSigner,
  listenOn,
  REPORT_PRICE,
  X402_NETWORK,
} from "../helpers/x402-parties.js";

/** A receiver authorizer's key, as a merchant keeps it (any key: the route names its address). */
const MERCHANT_KEY = "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba";

/**
 * x402's `auth-capture` end to end, with the unmodified npm packages: the merchant's paywall is
 * @x402/express with the client package's server scheme and x402's HTTP facilitator client pointed at
 * this service's facilitator; the agent is @x402/fetch with @x402/evm's `AuthCaptureEvmScheme`; the
 * escrow is the local stand-in at Commerce Payments' address.
 */
describe("x402 auth-capture: this service as the facilitator and the escrow's operator", function () {
  this.timeout(120_000);
  const h = useService();
  const agent = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const stranger = () => h.chain.accounts[LOCAL_ROLES.firstUser + 2]!;
  const usdc = () => h.service.deployment.token.address;
  const escrow = () => h.service.deployment.authCapture![0]!.escrow;
  const feeCollector = () => h.service.deployment.parameters.feeCollector;
  const feeBps = () => h.service.deployment.parameters.feeBps;

  let service: { url: string; close(): Promise<void> };
  let shop: { url: string; close(): Promise<void> } | null = null;
  beforeEach(async () => {
    service = await listenOn(h.service.app);
  });
  afterEach(async () => {
    await shop?.close();
    shop = null;
    await service.close();
  });

  const balances = (...accounts: Address[]) => Promise.all(accounts.map((a) => balanceOf(h.chain, usdc(), a)));
  const facilitator = (path: "verify" | "settle", body: unknown) => h.api.post(`/x402/${path}`).send(body as object);

  /** Requirements for 0.01 to the merchant on the facilitator's terms (what the paywall writes), with `extra` changed. */
  async function requirements(extra: Record<string, unknown> = {}): Promise<PaymentRequirements> {
    const kind = h.service.x402.supported().kinds.find((k) => k.scheme === "auth-capture")!;
    return authCaptureRequirements(kind.extra, { asset: usdc(), payTo: merchant().address, now: Math.floor(Date.now() / 1000) }, extra);
  }
  /** What @x402/evm's auth-capture client signs for those requirements. */
  function agentPayload(r: PaymentRequirements): Promise<PaymentPayload> {
    const client = new x402Client().register(X402_NETWORK, new AuthCaptureEvmScheme(eoaSigner(agent(), h.chain.publicClient)));
    return client.createPaymentPayload({ x402Version: 2, resource: { url: "http://merchant.test/report" }, accepts: [r] } as never);
  }

  /** A stored payment's wire `PaymentInfo`, as the escrow reads it. */
  const termsOfWire = (w: { maxAmount: string; salt: string }): PaymentInfo =>
    ({ ...w, maxAmount: BigInt(w.maxAmount), salt: BigInt(w.salt) }) as unknown as PaymentInfo;
  const paymentState = (hash: Hex) =>
    h.chain.publicClient.readContract({ address: escrow(), abi: authCaptureEscrowAbi, functionName: "paymentState", args: [hash] });

  it("/x402/supported lists auth-capture with the deployment's escrow, the relayer as operator, the fee collector and the fee as both bounds", () => {
    const kind = h.service.x402.supported().kinds.find((k) => k.scheme === "auth-capture");
    assert.deepEqual(kind, {
      x402Version: 2,
      scheme: "auth-capture",
      network: X402_NETWORK,
      extra: {
        authCaptureEscrow: h.service.deployment.authCapture![0]!.escrow,
        captureAuthorizer: h.service.holdOperator!.operator!,
        feeRecipient: feeCollector(),
        minFeeBps: feeBps(),
        maxFeeBps: feeBps(),
        asset: usdc(),
        name: h.service.deployment.token.eip712.name,
        version: h.service.deployment.token.eip712.version,
      },
    });
  });

  /** The merchant's own key as the route's receiver authorizer. */
  const merchantAuthorizer = () => ({ address: merchant().address, signTypedData: (typed: object) => merchant().signTypedData(typed as never) });
  const pay = (url: string) => authCaptureAgentFetch(eoaSigner(agent(), h.chain.publicClient))(url);
  const held = (hash: Hex) => paymentState(hash);
  /** What the escrow holds for the payment a paywall answer settled. */
  async function escrowOf(res: Response) {
    const settlement = decodePaymentResponseHeader(res.headers.get("PAYMENT-RESPONSE")!);
    const receipt = await h.chain.publicClient.getTransactionReceipt({ hash: settlement.transaction as Hex });
    return { settlement, receipt };
  }
  /** `request`, with a block mined every 50 ms until it answers. */
  async function mining<T>(request: Promise<T>): Promise<T> {
    let done = false;
    const answered = request.finally(() => {
      done = true;
    });
    await until(
      async () => {
        if (!done) await h.chain.mine(1);
        return done;
      },
      "the request's answer",
      { timeoutMs: 60_000, everyMs: 50 },
    );
    return answered;
  }
  const feeOf = (units: bigint) => (units * BigInt(feeBps())) / 10_000n;

  it("escrow, sync: the handler uses 0.06 of 0.10; in the same request 0.06 is captured with the fee and 0.04 voided back, the capture signed by the merchant", async () => {
    const paywall = authCapturePaywall(service.url, merchant().address, { authorizer: merchantAuthorizer() }, { used: "$0.06" });
    shop = await listenOn(paywall.app);
    const [agentBefore, merchantBefore, feesBefore] = await balances(agent().address, merchant().address, feeCollector());
    // Blocks go on being mined while the request runs (a block every 200 ms under npm start): the capture reads the escrow at the final block.
    const res = await mining(pay(`${shop.url}/report`));
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual(await res.json(), { report: "paid content" });
    const { settlement, receipt } = await escrowOf(res);
    assert.include(settlement, { success: true, amount: "60000" });
    const { input } = await h.chain.publicClient.getTransaction({ hash: receipt.transactionHash });
    assert.equal(decodeFunctionData({ abi: authCaptureEscrowAbi, data: input }).functionName, "capture", "the answer is the capture's transaction");
    assert.equal(getAddress(receipt.from), h.service.holdOperator!.operator, "sent from the captureAuthorizer /x402/supported advertises");
    assert.equal(getAddress(receipt.to!), escrow());
    const [agentAfter, merchantAfter, feesAfter] = await balances(agent().address, merchant().address, feeCollector());
    assert.equal(agentBefore - agentAfter, 60_000n, "0.04 voided back to the agent");
    assert.equal(merchantAfter - merchantBefore, 60_000n - feeOf(60_000n));
    assert.equal(feesAfter - feesBefore, feeOf(60_000n));
    assert.isEmpty(paywall.payments, "a sync route keeps nothing");
  });

  it("escrow, sync: a handler that fails voids the whole hold back to the agent, the void signed by the merchant", async () => {
    const paywall = authCapturePaywall(service.url, merchant().address, { authorizer: merchantAuthorizer() }, { fails: true });
    shop = await listenOn(paywall.app);
    const [agentBefore, merchantBefore] = await balances(agent().address, merchant().address);
    const fromBlock = await h.chain.publicClient.getBlockNumber();
    const res = await mining(pay(`${shop.url}/report`));
    assert.equal(res.status, 500, await res.clone().text());
    const voided = await h.chain.publicClient.getContractEvents({ address: escrow(), abi: authCaptureEscrowAbi, eventName: "PaymentVoided", fromBlock });
    assert.deepEqual(
      voided.map((e) => e.args.amount),
      [100_000n],
      "the whole 0.10 authorized, then voided",
    );
    const [agentAfter, merchantAfter] = await balances(agent().address, merchant().address);
    assert.equal(agentAfter, agentBefore, "back to the agent whole");
    assert.equal(merchantAfter, merchantBefore);
  });

  it("escrow, sync: a handler that used nothing (Settlement-Overrides $0) voids the whole hold", async () => {
    const paywall = authCapturePaywall(service.url, merchant().address, { authorizer: merchantAuthorizer() }, { used: "$0" });
    shop = await listenOn(paywall.app);
    const [agentBefore] = await balances(agent().address);
    const res = await mining(pay(`${shop.url}/report`));
    assert.equal(res.status, 200, await res.clone().text());
    const { settlement } = await escrowOf(res);
    assert.include(settlement, { success: true, amount: "0" });
    assert.deepEqual(await balances(agent().address), [agentBefore], "the whole 0.10 back");
  });

  it("escrow, deferred: the report is served on the authorization; the merchant captures later with the scheme's own call", async () => {
    const paywall = authCapturePaywall(service.url, merchant().address, { authorizer: merchantAuthorizer(), captureMode: "deferred" });
    shop = await listenOn(paywall.app);
    const [merchantBefore] = await balances(merchant().address);
    const res = await pay(`${shop.url}/report`);
    assert.equal(res.status, 200, await res.clone().text());
    assert.lengthOf(paywall.payments, 1);
    const payment = paywall.payments[0]!;
    assert.isString(payment.saltNonce, "a bound payment keeps its saltNonce");
    const hash = paymentInfoHash(termsOfWire(payment.paymentInfo), h.service.deployment.chainId, escrow());
    assert.deepEqual(await held(hash), [true, 100_000n, 0n]);
    // Blocks go on being mined while each call runs: the close-out's void waits for the capture's receipt to be final (one call per hold in flight).
    const partly = await mining(paywall.scheme.capture(payment, "25000", paywall.facilitator));
    await mining(paywall.scheme.capture(partly, "25000", paywall.facilitator, { voidRemainder: true }));
    assert.deepEqual(await held(hash), [true, 0n, 50_000n]);
    const [merchantAfter] = await balances(merchant().address);
    assert.equal(merchantAfter - merchantBefore, 2n * (25_000n - feeOf(25_000n)));
  });

  it("escrow, deferred, the merchant's authorizer a Safe 1.4.1 (ERC-1271): the server's capture settles", async () => {
    const owner = h.chain.accounts[LOCAL_ROLES.firstUser + 6]!;
    const infra = await deploySafeInfrastructure(h.chain, owner);
    const safe = await createSafe(h.chain, infra, owner, [owner], 1, 581n);
    const bySafe = { address: safe, signTypedData: (typed: object) => safeMessageSignature(h.chain, safe, [owner], hashTypedData(typed as never)) };
    const paywall = authCapturePaywall(service.url, merchant().address, { authorizer: bySafe, captureMode: "deferred" });
    shop = await listenOn(paywall.app);
    const [merchantBefore] = await balances(merchant().address);
    const res = await pay(`${shop.url}/report`);
    assert.equal(res.status, 200, await res.clone().text());
    const payment = paywall.payments[0]!;
    await h.chain.mine(3);
    const captured = await paywall.scheme.capture(payment, "100000", paywall.facilitator);
    assert.include(captured, { capturableAmount: "0", refundableAmount: "100000" });
    const [merchantAfter] = await balances(merchant().address);
    assert.equal(merchantAfter - merchantBefore, 100_000n - feeOf(100_000n));
  });

  it("authorization: one charge after the handler, with the merchant's signature", async () => {
    const paywall = authCapturePaywall(service.url, merchant().address, { authorizer: merchantAuthorizer(), paymentFlow: "authorization" });
    shop = await listenOn(paywall.app);
    const [merchantBefore] = await balances(merchant().address);
    const res = await pay(`${shop.url}/report`);
    assert.equal(res.status, 200, await res.clone().text());
    const { settlement, receipt } = await escrowOf(res);
    assert.include(settlement, { success: true, amount: "100000" });
    const { input } = await h.chain.publicClient.getTransaction({ hash: receipt.transactionHash });
    assert.equal(input.slice(0, 10), "0xc449d17c", "Commerce Payments v1.1's charge(…,uint256 feeAmount,address feeReceiver)");
    const [merchantAfter] = await balances(merchant().address);
    assert.equal(merchantAfter - merchantBefore, 100_000n - feeOf(100_000n));
  });

  it("collect-only (no receiver authorizer): authorized, the buyer's answer carries no hold, and the merchant captures later through /v1/holds", async () => {
    const paywall = authCapturePaywall(service.url, merchant().address);
    shop = await listenOn(paywall.app);
    const [agentBefore, merchantBefore] = await balances(agent().address, merchant().address);
    const res = await pay(`${shop.url}/report`);
    assert.equal(res.status, 200, await res.clone().text());
    const settlement = decodePaymentResponseHeader(res.headers.get("PAYMENT-RESPONSE")!);
    assert.isTrue(settlement.success);
    assert.notProperty(settlement.extra ?? {}, "hold", "the hold is the merchant's, never in the buyer's header");
    assert.lengthOf(paywall.payments, 1);
    const { hold, transaction } = paywall.payments[0]!;
    assert.equal(transaction, settlement.transaction);
    assert.match(hold!.hold, /^ho\./);
    const [agentHeld, merchantHeld] = await balances(agent().address, merchant().address);
    assert.equal(agentBefore - agentHeld, 100_000n, "the buyer's funds are in escrow");
    assert.equal(merchantHeld, merchantBefore, "nothing captured yet");
    await h.chain.mine(3);
    await h.service.holdOperator!.follow();
    const captured = await h.api.post("/v1/holds/capture").send({ hold: hold!.hold, amount: "0.1" });
    assert.equal(captured.status, 200, JSON.stringify(captured.body));
    await h.chain.publicClient.waitForTransactionReceipt({ hash: captured.body.tx_hash });
    const [merchantAfter] = await balances(merchant().address);
    assert.equal(merchantAfter - merchantBefore, 100_000n - feeOf(100_000n));
    assert.deepEqual(await paymentState(hold!.payment_hash as Hex), [true, 0n, 100_000n]);
  });

  it("the auth-capture paywall printed in docs/merchants.md, run as printed: 0.06 of 0.10 captured, the rest voided back", async () => {
    const { readFileSync } = await import("node:fs");
    const doc = readFileSync(new URL("../../docs/merchants.md", import.meta.url), "utf8");
    const section = doc.slice(doc.indexOf("### `auth-capture`: the fee split at capture, and holds"));
    const printed = /```ts\n([\s\S]*?)```/.exec(section)![1]!;
    assert.isAtMost(printed.trim().split("\n").length, 26, "about 25 lines");
    const source = printed
      .replace('"@stablecoin-payments/client"', JSON.stringify(new URL("../../client/src/index.ts", import.meta.url).pathname))
      .replace('"http://127.0.0.1:8787/x402"', JSON.stringify(`${service.url}/x402`))
      .replace("process.env.RECEIVER_AUTHORIZER_KEY", JSON.stringify(MERCHANT_KEY))
      .replaceAll('"0xYourWallet"', JSON.stringify(merchant().address))
      .replace("app.listen(3000);", "export default app;");
    const file = join(dirname(fileURLToPath(import.meta.url)), `.merchants-auth-capture-${process.pid}.ts`);
    writeFileSync(file, source);
    let app: Express;
    try {
      app = ((await import(pathToFileURL(file).href)) as { default: Express }).default;
    } finally {
      unlinkSync(file);
    }
    shop = await listenOn(app);
    const [agentBefore, merchantBefore] = await balances(agent().address, merchant().address);
    const report = await mining(pay(`${shop.url}/report`));
    assert.equal(report.status, 200, await report.clone().text());
    const [agentAfter, merchantAfter] = await balances(agent().address, merchant().address);
    assert.equal(merchantAfter - merchantBefore, 60_000n - feeOf(60_000n), "0.06 captured, the fee to the fee collector");
    assert.equal(agentBefore - agentAfter, 60_000n, "0.04 voided back");
  });

  it("a replayed payment: the second settle and verify are refused, and nothing moves twice", async () => {
    const r = await requirements();
    const payload = await agentPayload(r);
    const body = { x402Version: 2, paymentPayload: payload, paymentRequirements: r };
    const first = await facilitator("settle", body);
    assert.include(first.body, { success: true }, JSON.stringify(first.body));
    const [agentBefore] = await balances(agent().address);
    const again = await facilitator("settle", body);
    assert.include(again.body, { success: false, errorReason: "invalid_auth_capture_evm_payment_already_collected" }, JSON.stringify(again.body));
    const verified = await facilitator("verify", body);
    assert.include(verified.body, { isValid: false, invalidReason: "invalid_auth_capture_evm_payment_already_collected" });
    assert.deepEqual(await balances(agent().address), [agentBefore]);
  });

  it("the same payment settled twice at once: one success, one escrow call", async () => {
    const r = await requirements();
    const body = { x402Version: 2, paymentPayload: await agentPayload(r), paymentRequirements: r };
    const [agentBefore] = await balances(agent().address);
    const answers = await Promise.all([facilitator("settle", body), facilitator("settle", body)]);
    assert.deepEqual(answers.map((a) => a.body.success).sort(), [false, true], JSON.stringify(answers.map((a) => a.body)));
    const [agentAfter] = await balances(agent().address);
    assert.equal(agentBefore - agentAfter, REPORT_PRICE.units);
  });

  /** A contract payer (TestSmartAccount) holding 1.00, and a signer that signs for it as the page hands it the typed data. */
  async function contractPayer() {
    const owner = h.chain.accounts[LOCAL_ROLES.firstUser + 5]!;
    const account = await deployTestContract(h.chain, owner, testSmartAccountAbi, "TestSmartAccount", "TestSmartAccount.sol", [owner.address]);
    await send(h.chain, agent(), { address: usdc(), abi: erc20Abi, functionName: "transfer", args: [account, 1_000_000n] });
    const signer = { address: account, signTypedData: (typed: Parameters<typeof hashTypedData>[0]) => owner.sign({ hash: hashTypedData(typed) }) };
    const payloadOf = async (r: PaymentRequirements) =>
      new x402Client()
        .register(X402_NETWORK, new AuthCaptureEvmScheme(signer as never))
        .createPaymentPayload({ x402Version: 2, resource: { url: "http://merchant.test/report" }, accepts: [r] } as never);
    return { owner, account, payloadOf };
  }

  it("a contract payer (ERC-1271) pays within the escrow call's gas ceiling", async function () {
    // The ceiling is the release build's gas (AUTH_CAPTURE_GAS) plus SIGNATURE_GAS_CAP: instrumented
    // contracts (npm run coverage) spend more by design, so this is asserted on the real build only.
    if (COVERAGE_BUILD) this.skip();
    const { payloadOf } = await contractPayer();
    const paid = await requirements();
    const settled = await facilitator("settle", { x402Version: 2, paymentPayload: await payloadOf(paid), paymentRequirements: paid });
    assert.include(settled.body, { success: true }, JSON.stringify(settled.body));
  });

  it("a contract payer whose signature check burns gas is refused past the ceiling, and nothing is sent", async () => {
    const { owner, account, payloadOf } = await contractPayer();
    await send(h.chain, owner, { address: account, abi: testSmartAccountAbi, functionName: "setValidationGasBurn", args: [5_000n] });
    const r = await requirements();
    const body = { x402Version: 2, paymentPayload: await payloadOf(r), paymentRequirements: r };
    const relayer = h.service.holdOperator!.operator!;
    const nonceBefore = await h.chain.publicClient.getTransactionCount({ address: relayer });
    const verified = await facilitator("verify", body);
    assert.include(verified.body, { isValid: false, invalidReason: "invalid_transaction_state" });
    assert.include(verified.body.invalidMessage, "gas");
    const refused = await facilitator("settle", body);
    assert.include(refused.body, { success: false, errorReason: "invalid_transaction_state" });
    assert.equal(await h.chain.publicClient.getTransactionCount({ address: relayer }), nonceBefore, "the relayer sent nothing");
  });

  it("an authorization for another escrow or another operator is refused, before anything is sent", async () => {
    // Commerce Payments' v1.0 escrow, which @x402/evm's client signs for too.
    const otherEscrow = await requirements({ authCaptureEscrow: "0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff" });
    const otherOperator = await requirements({ captureAuthorizer: stranger().address });
    for (const [r, reason] of [
      [otherEscrow, "invalid_auth_capture_evm_extra"],
      [otherOperator, "invalid_auth_capture_evm_operator_not_admitted"],
    ] as const) {
      const body = { x402Version: 2, paymentPayload: await agentPayload(r), paymentRequirements: r };
      assert.include((await facilitator("verify", body)).body, { isValid: false, invalidReason: reason });
      assert.include((await facilitator("settle", body)).body, { success: false, errorReason: reason });
    }
  });

  it("fee bounds other than the service's are refused: a lower fee, a range, another fee collector", async () => {
    for (const extra of [{ minFeeBps: 100, maxFeeBps: 100 }, { minFeeBps: 0, maxFeeBps: feeBps() }, { feeRecipient: stranger().address }]) {
      const r = await requirements(extra);
      const body = { x402Version: 2, paymentPayload: await agentPayload(r), paymentRequirements: r };
      const verified = await facilitator("verify", body);
      assert.include(verified.body, { isValid: false, invalidReason: "invalid_auth_capture_evm_extra" }, JSON.stringify(extra));
      assert.include((await facilitator("settle", body)).body, { success: false, errorReason: "invalid_auth_capture_evm_extra" });
    }
  });

  it("a Permit2 payload is refused in this service's words", async () => {
    const r = await requirements({ assetTransferMethod: "permit2" });
    const payload = await agentPayload(r);
    assert.property(payload.payload, "permit2Authorization");
    const body = { x402Version: 2, paymentPayload: payload, paymentRequirements: r };
    const verified = await facilitator("verify", body);
    assert.include(verified.body, { isValid: false, invalidReason: "invalid_auth_capture_evm_payload_format" });
    assert.match(verified.body.invalidMessage, /^a Permit2 payload: this facilitator settles auth-capture with USDC's ERC-3009 authorization only/);
    const settled = await facilitator("settle", body);
    assert.include(settled.body, { success: false, errorReason: "invalid_auth_capture_evm_payload_format" });
  });

  it("a payload whose terms are not the requirements' (another payTo than signed) is refused by its nonce", async () => {
    const r = await requirements();
    const payload = await agentPayload(r);
    const body = { x402Version: 2, paymentPayload: payload, paymentRequirements: { ...r, payTo: stranger().address } };
    assert.include((await facilitator("verify", body)).body, { isValid: false, invalidReason: "invalid_auth_capture_evm_nonce_mismatch" });
  });
});
