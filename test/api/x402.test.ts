import { assert } from "chai";
import { readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Express } from "express";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme as ExactEvmClientScheme } from "@x402/evm/exact/client";
import { x402Client } from "@x402/fetch";
import { erc20Abi, getAddress, getTypesForEIP712Domain, hashTypedData, parseEventLogs, type Address, type Hex } from "viem";
import { fiatTokenAbi, splitterAbi } from "../../src/generated/contracts.js";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { tokenDomain, transferAuthorizationTypedData } from "../../src/chain/token-authorizations.js";
import { useService } from "../helpers/service.js";
import { signWithEthers, signWithMetaMask } from "../helpers/signers.js";
import { balanceOf, send } from "../helpers/tx.js";
import { createSafe, deploySafeInfrastructure, safeMessageSignature } from "../helpers/safe.js";
import { agentFetch, eoaSigner, listenOn, merchantPaywall, REPORT_PRICE, X402_NETWORK } from "../helpers/x402-parties.js";

/**
 * x402 end to end, with the unmodified npm packages: the merchant's paywall is @x402/express with
 * x402's HTTP facilitator client pointed at this service's facilitator, the agent is @x402/fetch with
 * @x402/evm's `exact` client; the chain is the local Base Sepolia with Circle's FiatToken.
 */
describe("x402: this service as the facilitator, with @x402/express, @x402/fetch and @x402/evm", function () {
  this.timeout(120_000);
  const h = useService();
  const agent = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const frontRunner = () => h.chain.accounts[LOCAL_ROLES.firstUser + 7]!;
  const usdc = () => h.service.deployment.token.address;
  const feeCollector = () => h.service.deployment.parameters.feeCollector;
  const fee = (REPORT_PRICE.units * 200n) / 10_000n;

  let service: { url: string; close(): Promise<void> };
  let shop: { url: string; close(): Promise<void> };
  let paywall: ReturnType<typeof merchantPaywall>;
  /** Runs between the paywall's verify and its settle, when a test sets it. */
  let beforeSettle: (() => Promise<void>) | undefined;

  beforeEach(async () => {
    beforeSettle = undefined;
    service = await listenOn(h.service.app);
    paywall = merchantPaywall(service.url, merchant().address, { beforeSettle: () => beforeSettle?.() ?? Promise.resolve() });
    shop = await listenOn(paywall.app);
  });
  afterEach(async () => {
    await shop.close();
    await service.close();
  });

  const balances = async (...accounts: Address[]) => Promise.all(accounts.map((a) => balanceOf(h.chain, usdc(), a)));
  const facilitator = (path: "verify" | "settle", body: unknown) => h.api.post(`/x402/${path}`).send(body as object);

  /** The 402's requirements for the report (what the paywall hands an agent), and its payTo. */
  async function requirementsFromPaywall(): Promise<PaymentRequirements> {
    const res = await fetch(`${shop.url}/report`);
    assert.equal(res.status, 402);
    const required = decodePaymentRequiredHeader(res.headers.get("PAYMENT-REQUIRED")!);
    return required.accepts[0]!;
  }
  /** What @x402/evm's client signs for those requirements (random nonce, validBefore now + the timeout). */
  async function agentPayload(requirements: PaymentRequirements, signer = eoaSigner(agent(), h.chain.publicClient)): Promise<PaymentPayload> {
    const client = new x402Client().register(X402_NETWORK, new ExactEvmClientScheme(signer));
    return client.createPaymentPayload({ x402Version: 2, resource: { url: `${shop.url}/report` }, accepts: [requirements] } as never);
  }

  it("the agent gets the report; one transaction pays the recipient and the fee collector; verify says valid", async () => {
    const [agentBefore, merchantBefore, feesBefore] = await balances(agent().address, merchant().address, feeCollector());
    const sent: Headers[] = [];
    const res = await agentFetch(eoaSigner(agent(), h.chain.publicClient), sent)(`${shop.url}/report`);
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual(await res.json(), { report: "paid content" });

    const settlement = decodePaymentResponseHeader(res.headers.get("PAYMENT-RESPONSE")!);
    assert.isTrue(settlement.success);
    assert.equal(settlement.network, X402_NETWORK);
    assert.equal(getAddress(settlement.payer!), agent().address);
    const receipt = await h.chain.publicClient.getTransactionReceipt({ hash: settlement.transaction as Hex });
    assert.equal(receipt.status, "success");
    assert.equal(getAddress(receipt.to!), h.service.deployment.contracts.Splitter.address, "sent to the Splitter");
    assert.equal(getAddress(receipt.from), h.service.x402.supported().signers["eip155:*"]![0], "by the relayer the facilitator names");

    // The payment address the agent paid, and the three moves of that one transaction.
    const payTo = decodePaymentRequiredHeader(await firstPaymentRequired(sent)).accepts[0]!.payTo as Address;
    const transfers = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs }).map((l) => [
      getAddress(l.args.from),
      getAddress(l.args.to),
      l.args.value,
    ]);
    assert.deepEqual(transfers, [
      [agent().address, getAddress(payTo), REPORT_PRICE.units],
      [getAddress(payTo), merchant().address, REPORT_PRICE.units - fee],
      [getAddress(payTo), getAddress(feeCollector()), fee],
    ]);
    const [paid] = parseEventLogs({ abi: splitterAbi, eventName: "Paid", logs: receipt.logs });
    assert.equal(getAddress(paid!.args.payer), agent().address, "Paid names the agent");
    const [agentAfter, merchantAfter, feesAfter, left] = await balances(agent().address, merchant().address, feeCollector(), payTo);
    assert.equal(agentBefore! - agentAfter!, REPORT_PRICE.units);
    assert.equal(merchantAfter! - merchantBefore!, REPORT_PRICE.units - fee);
    assert.equal(feesAfter! - feesBefore!, fee);
    assert.equal(left, 0n, "nothing stays at the payment address");

    // The merchant's own check: POST /v1/payments/verify with the intent behind the payTo.
    const issued = paywall.addresses.paymentOf(payTo)!;
    assert.isDefined(issued);
    const confirming = await h.api.post("/v1/payments/verify").send({ intent: issued.intent, tx_hash: settlement.transaction });
    assert.deepEqual(confirming.body, { valid: false, code: "PAYMENT_CONFIRMING" }, "not final yet");
    await h.chain.mine(2);
    const verdict = await h.api.post("/v1/payments/verify").send({ intent: issued.intent, tx_hash: settlement.transaction });
    assert.equal(verdict.status, 200);
    assert.include(verdict.body, { valid: true, tx_hash: settlement.transaction, reference: issued.reference, amount: "0.010000" });
    // A refund goes straight back to the agent's wallet (Paid names it), not to the payment address.
    const refund = await h.api.post("/v1/refunds/prepare").send({ intent: issued.intent, tx_hash: settlement.transaction, amount: "10000" });
    assert.equal(refund.status, 200, JSON.stringify(refund.body));
    assert.equal(getAddress(refund.body.payer), agent().address);
    assert.notProperty(refund.body, "payer_from_deposit");
  });

  /** The 402's PAYMENT-REQUIRED header is not among the agent's requests: fetch it again for its payTo. */
  async function firstPaymentRequired(sent: Headers[]): Promise<string> {
    const paid = sent.find((hs) => hs.has("PAYMENT-SIGNATURE"))!;
    const payload = JSON.parse(Buffer.from(paid.get("PAYMENT-SIGNATURE")!, "base64").toString()) as PaymentPayload;
    return Buffer.from(JSON.stringify({ x402Version: 2, accepts: [payload.accepted] })).toString("base64");
  }

  it("a replayed payment is refused in x402's shape, by the paywall and by the facilitator", async () => {
    const sent: Headers[] = [];
    const first = await agentFetch(eoaSigner(agent(), h.chain.publicClient), sent)(`${shop.url}/report`);
    assert.equal(first.status, 200);
    const header = sent.find((hs) => hs.has("PAYMENT-SIGNATURE"))!.get("PAYMENT-SIGNATURE")!;
    const [merchantBefore] = await balances(merchant().address);

    const replay = await fetch(`${shop.url}/report`, { headers: { "PAYMENT-SIGNATURE": header } });
    assert.equal(replay.status, 402, "no second report for one payment");
    assert.equal(decodePaymentRequiredHeader(replay.headers.get("PAYMENT-REQUIRED")!).error, "invalid_exact_evm_nonce_already_used");

    const payload = JSON.parse(Buffer.from(header, "base64").toString()) as PaymentPayload;
    const verified = await facilitator("verify", { x402Version: 2, paymentPayload: payload, paymentRequirements: payload.accepted });
    assert.equal(verified.status, 200);
    assert.deepEqual(
      { isValid: verified.body.isValid, invalidReason: verified.body.invalidReason, payer: getAddress(verified.body.payer) },
      { isValid: false, invalidReason: "invalid_exact_evm_nonce_already_used", payer: agent().address },
    );
    const [merchantAfter] = await balances(merchant().address);
    assert.equal(merchantAfter, merchantBefore, "nothing moved");
  });

  it("the same payment sent twice at once (both verified before either settles): one report, not two", async () => {
    // The first request, to learn the agent's payment header.
    const requirements = await requirementsFromPaywall();
    const header = encodePaymentSignatureHeader(await agentPayload(requirements));
    // Both requests wait at the paywall's settle until both have been verified.
    let arrived = 0;
    let release!: () => void;
    const both = new Promise<void>((resolve) => {
      release = resolve;
    });
    beforeSettle = async () => {
      if (++arrived === 2) release();
      await both;
    };
    const [agentBefore, merchantBefore] = await balances(agent().address, merchant().address);
    const answers = await Promise.all([1, 2].map(() => fetch(`${shop.url}/report`, { headers: { "PAYMENT-SIGNATURE": header } })));
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 402], "one report for one payment");
    const [agentAfter, merchantAfter] = await balances(agent().address, merchant().address);
    assert.equal(agentBefore! - agentAfter!, REPORT_PRICE.units);
    assert.equal(merchantAfter! - merchantBefore!, REPORT_PRICE.units - fee);
  });

  it("an expired authorization is refused in x402's shape, by the paywall and by the facilitator", async () => {
    const requirements = await requirementsFromPaywall();
    const now = BigInt(Math.floor(Date.now() / 1000));
    const authorization = {
      from: agent().address,
      to: getAddress(requirements.payTo),
      value: BigInt(requirements.amount),
      validAfter: now - 600n,
      validBefore: now - 1n,
      nonce: `0x${"ab".repeat(32)}` as Hex,
    };
    const signature = await agent().signTypedData(
      transferAuthorizationTypedData(tokenDomain(84532, usdc(), h.service.deployment.token.eip712), authorization) as never,
    );
    const payload = {
      x402Version: 2,
      resource: { url: `${shop.url}/report` },
      accepted: requirements,
      payload: {
        signature,
        authorization: {
          ...authorization,
          value: String(authorization.value),
          validAfter: String(authorization.validAfter),
          validBefore: String(authorization.validBefore),
        },
      },
    };
    const res = await fetch(`${shop.url}/report`, { headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(payload as PaymentPayload) } });
    assert.equal(res.status, 402);
    assert.equal(decodePaymentRequiredHeader(res.headers.get("PAYMENT-REQUIRED")!).error, "invalid_exact_evm_payload_authorization_valid_before");

    const verified = await facilitator("verify", { x402Version: 2, paymentPayload: payload, paymentRequirements: requirements });
    assert.include(verified.body, { isValid: false, invalidReason: "invalid_exact_evm_payload_authorization_valid_before" });
    const settled = await facilitator("settle", { x402Version: 2, paymentPayload: payload, paymentRequirements: requirements });
    assert.include(settled.body, {
      success: false,
      errorReason: "invalid_exact_evm_payload_authorization_valid_before",
      transaction: "",
      network: X402_NETWORK,
    });
  });

  it("an agent whose wallet is MetaMask's (eth_signTypedData_v4) or ethers v6 pays: each signs exactly what x402's client hands it", async () => {
    // As a wallet RPC carries it: viem's wallet client adds the EIP712Domain type before eth_signTypedData_v4.
    const asWallet = (typed: { domain: Record<string, unknown>; types: Record<string, unknown>; primaryType: string; message: Record<string, unknown> }) => ({
      ...typed,
      types: { EIP712Domain: getTypesForEIP712Domain({ domain: typed.domain as never }), ...typed.types } as never,
    });
    const wallets = {
      metamask: { address: agent().address, signTypedData: async (typed: never) => signWithMetaMask(agent(), asWallet(typed)) },
      ethers: { address: agent().address, signTypedData: (typed: never) => signWithEthers(agent(), asWallet(typed)) },
    };
    for (const [name, signer] of Object.entries(wallets)) {
      const [merchantBefore] = await balances(merchant().address);
      const res = await agentFetch(signer as never)(`${shop.url}/report`);
      assert.equal(res.status, 200, `${name}: ${await res.clone().text()}`);
      const [merchantAfter] = await balances(merchant().address);
      assert.equal(merchantAfter! - merchantBefore!, REPORT_PRICE.units - fee, name);
    }
  });

  it("a Safe (ERC-1271) pays as an agent: its owner signs the Safe's message over the authorization", async () => {
    const owner = h.chain.accounts[LOCAL_ROLES.firstUser + 3]!;
    const infra = await deploySafeInfrastructure(h.chain, owner);
    const safe = await createSafe(h.chain, infra, owner, [owner], 1);
    await send(h.chain, agent(), { address: usdc(), abi: erc20Abi, functionName: "transfer", args: [safe, 1_000_000n] });
    // x402's client signs typed data through the signer: the Safe's owner signs SafeMessage over its hash.
    const safeSigner = {
      address: safe,
      signTypedData: (typed: Parameters<typeof hashTypedData>[0]) => safeMessageSignature(h.chain, safe, [owner], hashTypedData(typed)),
    };
    const [merchantBefore] = await balances(merchant().address);
    const res = await agentFetch(safeSigner as never)(`${shop.url}/report`);
    assert.equal(res.status, 200, await res.clone().text());
    const settlement = decodePaymentResponseHeader(res.headers.get("PAYMENT-RESPONSE")!);
    assert.equal(getAddress(settlement.payer!), safe);
    const [merchantAfter, safeLeft] = await balances(merchant().address, safe);
    assert.equal(merchantAfter! - merchantBefore!, REPORT_PRICE.units - fee);
    assert.equal(safeLeft, 1_000_000n - REPORT_PRICE.units);
  });

  it("the per-request paywall printed in docs/merchants.md, run as printed, sells the report to an agent", async () => {
    const doc = readFileSync(new URL("../../docs/merchants.md", import.meta.url), "utf8");
    const section = doc.slice(doc.indexOf("### A payment address per request"));
    const printed = /```ts\n([\s\S]*?)```/.exec(section)![1]!;
    assert.isAtMost(printed.trim().split("\n").length, 22, "about 20 lines");
    // Only what a merchant fills in changes: the service's URL, their wallet, the port, and where the client package is.
    const source = printed
      .replace('"@stablecoin-payments/client"', JSON.stringify(new URL("../../client/src/index.ts", import.meta.url).pathname))
      .replace('"http://127.0.0.1:8787"', JSON.stringify(service.url))
      .replace('"0xYourWallet"', JSON.stringify(merchant().address))
      .replace("app.listen(3000);", "export default app;");
    assert.notEqual(source, printed);
    const file = join(dirname(fileURLToPath(import.meta.url)), `.merchants-paywall-${process.pid}.ts`);
    writeFileSync(file, source);
    let app: Express;
    try {
      app = ((await import(pathToFileURL(file).href)) as { default: Express }).default;
    } finally {
      unlinkSync(file);
    }
    const printedShop = await listenOn(app);
    try {
      const [merchantBefore] = await balances(merchant().address);
      const res = await agentFetch(eoaSigner(agent(), h.chain.publicClient))(`${printedShop.url}/report`);
      assert.equal(res.status, 200, await res.clone().text());
      assert.deepEqual(await res.json(), { report: "paid content" });
      const [merchantAfter] = await balances(merchant().address);
      assert.equal(merchantAfter! - merchantBefore!, REPORT_PRICE.units - fee);
    } finally {
      await printedShop.close();
    }
  });

  describe("a front-runner who submits the same authorization first", () => {
    /** The authorization's arguments, as anyone reading the mempool (or a leaked header) has them. */
    function stolen(payload: PaymentPayload) {
      const p = payload.payload as { signature: Hex; authorization: Record<string, string> };
      const a = p.authorization;
      return {
        from: a.from as Address,
        to: a.to as Address,
        value: BigInt(a.value!),
        validAfter: BigInt(a.validAfter!),
        validBefore: BigInt(a.validBefore!),
        nonce: a.nonce as Hex,
        signature: p.signature,
      };
    }

    it("straight to USDC, between the paywall's verify and settle: the funds still split, and the agent gets the report", async () => {
      const [merchantBefore, feesBefore] = await balances(merchant().address, feeCollector());
      const sent: Headers[] = [];
      beforeSettle = async () => {
        const header = sent.find((hs) => hs.has("PAYMENT-SIGNATURE"))!.get("PAYMENT-SIGNATURE")!;
        const a = stolen(JSON.parse(Buffer.from(header, "base64").toString()));
        await send(h.chain, frontRunner(), {
          address: usdc(),
          abi: fiatTokenAbi,
          functionName: "transferWithAuthorization",
          args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, a.signature],
        });
      };
      const res = await agentFetch(eoaSigner(agent(), h.chain.publicClient), sent)(`${shop.url}/report`);
      assert.equal(res.status, 200, await res.clone().text());
      const settlement = decodePaymentResponseHeader(res.headers.get("PAYMENT-RESPONSE")!);
      assert.isTrue(settlement.success);
      const receipt = await h.chain.publicClient.getTransactionReceipt({ hash: settlement.transaction as Hex });
      const [paid] = parseEventLogs({ abi: splitterAbi, eventName: "Paid", logs: receipt.logs });
      assert.isDefined(paid, "the transaction named is the settlement");
      const [merchantAfter, feesAfter] = await balances(merchant().address, feeCollector());
      assert.equal(merchantAfter! - merchantBefore!, REPORT_PRICE.units - fee);
      assert.equal(feesAfter! - feesBefore!, fee);
    });

    it("through the Splitter with the facilitator's own call: settle names the front-runner's settlement, which split the funds", async () => {
      const requirements = await requirementsFromPaywall();
      const payload = await agentPayload(requirements);
      const body = { x402Version: 2, paymentPayload: payload, paymentRequirements: requirements };
      assert.include((await facilitator("verify", body)).body, { isValid: true });
      const issued = paywall.addresses.paymentOf(requirements.payTo)!;
      const a = stolen(payload);
      const [merchantBefore, feesBefore] = await balances(merchant().address, feeCollector());
      const theirs = await send(h.chain, frontRunner(), {
        address: h.service.deployment.contracts.Splitter.address,
        abi: splitterAbi,
        functionName: "settleDepositFromAuthorization",
        args: [usdc(), merchant().address, REPORT_PRICE.units, issued.reference as Hex, a.from, a.validAfter, a.validBefore, a.nonce, a.signature],
      });
      const settled = await facilitator("settle", body);
      assert.deepEqual(settled.body, { success: true, payer: agent().address, transaction: theirs.transactionHash, network: X402_NETWORK });
      const [merchantAfter, feesAfter] = await balances(merchant().address, feeCollector());
      assert.equal(merchantAfter! - merchantBefore!, REPORT_PRICE.units - fee);
      assert.equal(feesAfter! - feesBefore!, fee);
      // And verify, asked after the front-run, refuses the authorization as used.
      assert.include((await facilitator("verify", body)).body, { isValid: false, invalidReason: "invalid_exact_evm_nonce_already_used" });
    });
  });
});
