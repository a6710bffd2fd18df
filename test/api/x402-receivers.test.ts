import { assert } from "chai";
import { readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import express, { type Express } from "express";
import supertest from "supertest";
import { HTTPFacilitatorClient } from "@x402/core/server";
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import { ExactEvmScheme as ExactEvmServerScheme } from "@x402/evm/exact/server";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import { encodeFunctionData, erc20Abi, getAddress, hashTypedData, multicall3Abi, parseEventLogs, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { fakeAuthorizationTokenAbi, fiatTokenAbi, x402ReceiversAbi } from "../../src/generated/contracts.js";
import { deployTestContract } from "../helpers/deploy.js";

import { LOCAL_ROLES, localAccount } from "../../dev/localchain/harness.js";
import { RECEIVER_SWEEP_EVERY_MS } from "../../src/x402/receiver-splitter.js";
import { creationBytecode } from "../../dev/deploy/artifacts.js";
import { COVERAGE_BUILD } from "../../dev/deploy/build-mode.js";
import { keccak256 as viemKeccak } from "viem";
import { X402_RECEIVER_CODE_HASH, x402ReceiverAddress } from "../../client/src/index.js";
import { tokenDomain, transferAuthorizationTypedData } from "../../src/chain/token-authorizations.js";
import { DepositWatches } from "../../src/store/deposit-watches.js";
import { X402Answers } from "../../src/store/x402-answers.js";
import { X402ReceiverStore } from "../../src/store/x402-receivers.js";
import { X402Facilitator } from "../../src/x402/facilitator.js";
import type { ReceiverSender } from "../../src/x402/receiver-sender.js";
import { x402Client } from "@x402/fetch";
import { ExactEvmScheme as ExactEvmClientScheme } from "@x402/evm/exact/client";
import { useService } from "../helpers/service.js";
import { balanceOf, send } from "../helpers/tx.js";
import { createSafe, deploySafeInfrastructure, safeMessageSignature } from "../helpers/safe.js";
import { agentFetch, eoaSigner, listenOn, REPORT_PRICE, X402_NETWORK } from "../helpers/x402-parties.js";

/** Multicall3, at its canonical address on Base and on the local chain. */
const MULTICALL3 = "0xcA11bde05977b3631167028862bE2a173976CA11" as Address;

/**
 * Issue 29: x402 with one receiver per merchant. The paywall is the unmodified @x402/express with a
 * STATIC payTo string (the merchant's receiver), agents are @x402/fetch + @x402/evm on Circle's
 * FiatToken, this service is the facilitator; nothing is created per request.
 */
describe("x402 to a merchant's receiver: a static payTo, nothing created per request", function () {
  this.timeout(180_000);
  const h = useService();
  const agents = () => [0, 4, 5].map((i) => h.chain.accounts[LOCAL_ROLES.firstUser + i]!);
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const frontRunner = () => h.chain.accounts[LOCAL_ROLES.firstUser + 7]!;
  const usdc = () => h.service.deployment.token.address;
  const receivers = () => h.service.deployment.contracts.X402Receivers.address;
  const feeCollector = () => h.service.deployment.parameters.feeCollector;
  const fee = (REPORT_PRICE.units * 200n) / 10_000n;
  /**
   * A receiver derived offline with the client, from the code hash of the build this run deployed:
   * the client's built-in hash is the real build's, and an instrumented build (npm run coverage) has
   * another receiver code, so other addresses.
   */
  const receiverOffline = async (recipient: Address) => {
    const codeHash = await h.chain.publicClient.readContract({ address: receivers(), abi: x402ReceiversAbi, functionName: "RECEIVER_CODE_HASH" });
    return x402ReceiverAddress({ receivers: receivers(), recipient, token: usdc(), codeHash });
  };

  let service: { url: string; close(): Promise<void> };
  let shop: { url: string; close(): Promise<void> };
  let payTo: Address;
  /** Every path asked of the service (to show no POST /v1/payments is made). */
  let asked: string[];
  let beforeSettle: (() => Promise<void>) | undefined;

  /** The paywall: @x402/express, a static payTo string, x402's HTTP facilitator client. */
  function staticPaywall(serviceUrl: string, staticPayTo: string, price: string = REPORT_PRICE.x402): Express {
    const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: `${serviceUrl}/x402` })).register(X402_NETWORK, new ExactEvmServerScheme());
    server.onBeforeSettle(async () => void (await beforeSettle?.()));
    const app = express();
    app.use(
      paymentMiddleware(
        { "GET /report": { accepts: { scheme: "exact", network: X402_NETWORK, price, payTo: staticPayTo }, description: "Today's report" } },
        server,
      ),
    );
    app.get("/report", (_req, res) => {
      res.json({ report: "paid content" });
    });
    return app;
  }

  beforeEach(async () => {
    asked = [];
    beforeSettle = undefined;
    const counted = express();
    counted.use((req, _res, next) => {
      asked.push(`${req.method} ${req.path}`);
      next();
    });
    counted.use(h.service.app);
    service = await listenOn(counted);
    const answer = await h.api.post("/v1/x402/receivers").send({ recipient: merchant().address });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    payTo = answer.body.pay_to;
    shop = await listenOn(staticPaywall(service.url, payTo));
  });
  afterEach(async () => {
    await shop.close();
    await service.close();
  });

  const balances = (...accounts: Address[]) => Promise.all(accounts.map((a) => balanceOf(h.chain, usdc(), a)));
  const rows = async (table: string) => Number((await h.database.query<{ n: string | number }>(`SELECT count(*) AS n FROM ${table}`))[0]!.n);
  const verdict = (body: { tx_hash: string; nonce: string; recipient: string }) => h.api.post("/v1/x402/verify-settlement").send(body);
  const nonceOf = (headers: Headers[]) => {
    const header = headers.find((hs) => hs.has("PAYMENT-SIGNATURE"))!.get("PAYMENT-SIGNATURE")!;
    return (JSON.parse(Buffer.from(header, "base64").toString()) as { payload: { authorization: { nonce: Hex } } }).payload.authorization;
  };

  it("the client's built-in code hash is the receiver's, as built for release (its default derivation gives the deployed address)", async function () {
    // Only the real build has the release's receiver code; an instrumented one has its own hash.
    if (COVERAGE_BUILD) this.skip();
    assert.equal(X402_RECEIVER_CODE_HASH, viemKeccak(creationBytecode("X402Receiver")), "the client's code hash is the contract's");
    assert.equal(x402ReceiverAddress({ receivers: receivers(), recipient: merchant().address, token: usdc() }), payTo);
  });

  it("POST /v1/x402/receivers is deterministic, the client derives the same address offline, and one row is kept per receiver", async () => {
    const again = await h.api.post("/v1/x402/receivers").send({ recipient: merchant().address.toLowerCase() });
    assert.deepEqual(again.body, {
      pay_to: payTo,
      recipient: merchant().address,
      token: usdc(),
      network: X402_NETWORK,
      fee_bps: 200,
    });
    assert.equal(
      payTo,
      await h.chain.publicClient.readContract({ address: receivers(), abi: x402ReceiversAbi, functionName: "receiverOf", args: [merchant().address, usdc()] }),
    );
    assert.equal(await receiverOffline(merchant().address), payTo);
    assert.equal(await rows("x402_receivers"), 1);
    const refused = await h.api.post("/v1/x402/receivers").send({ recipient: usdc() });
    assert.equal(refused.status, 400);
  });

  it("three agents pay the static route one after another: each gets the report, each settlement pays recipient and fee collector in one transaction, no POST /v1/payments, and each final verdict is valid", async () => {
    const answersBefore = await rows("x402_answers");
    // Unpaid 402s first: they cost this service nothing (no request reaches it, no row).
    for (let i = 0; i < 3; i++) assert.equal((await fetch(`${shop.url}/report`)).status, 402);
    assert.deepEqual(
      asked.filter((a) => !a.startsWith("GET /x402/supported")),
      [],
      "an unpaid 402 asks nothing of the service",
    );
    assert.equal(await rows("x402_answers"), answersBefore);
    const paid: Array<{ tx: Hex; nonce: Hex; payer: Address }> = [];
    for (const agent of agents()) {
      const [agentBefore, merchantBefore, feesBefore] = await balances(agent.address, merchant().address, feeCollector());
      const sent: Headers[] = [];
      const res = await agentFetch(eoaSigner(agent, h.chain.publicClient), sent)(`${shop.url}/report`);
      assert.equal(res.status, 200, await res.clone().text());
      assert.deepEqual(await res.json(), { report: "paid content" });
      const settlement = decodePaymentResponseHeader(res.headers.get("PAYMENT-RESPONSE")!);
      assert.isTrue(settlement.success);
      assert.equal(getAddress(settlement.payer!), agent.address);
      const receipt = await h.chain.publicClient.getTransactionReceipt({ hash: settlement.transaction as Hex });
      assert.equal(getAddress(receipt.to!), receivers(), "sent to X402Receivers");
      const transfers = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs }).map((l) => [
        getAddress(l.args.from),
        getAddress(l.args.to),
        l.args.value,
      ]);
      assert.deepEqual(transfers, [
        [agent.address, payTo, REPORT_PRICE.units],
        [payTo, merchant().address, REPORT_PRICE.units - fee],
        [payTo, getAddress(feeCollector()), fee],
      ]);
      const authorization = nonceOf(sent);
      const [event] = parseEventLogs({ abi: x402ReceiversAbi, eventName: "ReceiverPaid", logs: receipt.logs });
      assert.deepEqual(
        [getAddress(event!.args.payer), getAddress(event!.args.recipient), event!.args.nonce, event!.args.amount, event!.args.fee],
        [agent.address, merchant().address, authorization.nonce, REPORT_PRICE.units, fee],
      );
      const [agentAfter, merchantAfter, feesAfter, left] = await balances(agent.address, merchant().address, feeCollector(), payTo);
      assert.deepEqual(
        [agentBefore! - agentAfter!, merchantAfter! - merchantBefore!, feesAfter! - feesBefore!, left],
        [REPORT_PRICE.units, REPORT_PRICE.units - fee, fee, 0n],
      );
      paid.push({ tx: settlement.transaction as Hex, nonce: authorization.nonce, payer: agent.address });
    }
    assert.notInclude(asked.join("\n"), "/v1/payments", "no POST /v1/payments is made");
    assert.equal(await rows("x402_receivers"), 1, "still one row for the receiver");
    assert.equal(await rows("x402_answers"), answersBefore + 3, "one answer per paid authorization, none per 402");

    // The final verdict: confirming until final, then valid for each; a wrong nonce or recipient is no payment.
    const first = paid[0]!;
    const latest = paid[2]!;
    assert.deepEqual((await verdict({ tx_hash: latest.tx, nonce: latest.nonce, recipient: merchant().address })).body, {
      valid: false,
      code: "PAYMENT_CONFIRMING",
    });
    await h.chain.mine(2);
    for (const p of paid) {
      const v = await verdict({ tx_hash: p.tx, nonce: p.nonce, recipient: merchant().address });
      assert.equal(v.status, 200);
      assert.include(v.body, { valid: true, tx_hash: p.tx, nonce: p.nonce.toLowerCase(), pay_to: payTo, amount: "0.010000", amount_units: "10000" });
      assert.equal(getAddress(v.body.payer), p.payer);
    }
    assert.deepEqual((await verdict({ tx_hash: first.tx, nonce: latest.nonce, recipient: merchant().address })).body, {
      valid: false,
      code: "PAYMENT_MISMATCH",
    });
    assert.deepEqual((await verdict({ tx_hash: first.tx, nonce: first.nonce, recipient: frontRunner().address })).body, {
      valid: false,
      code: "PAYMENT_MISMATCH",
    });
    assert.deepEqual((await verdict({ tx_hash: `0x${"12".repeat(32)}`, nonce: first.nonce, recipient: merchant().address })).body, {
      valid: false,
      code: "PAYMENT_NOT_FOUND",
    });
  });

  it("a replayed payment header and an expired authorization are refused in x402's shapes; nothing moves", async () => {
    const sent: Headers[] = [];
    const agent = agents()[0]!;
    const res = await agentFetch(eoaSigner(agent, h.chain.publicClient), sent)(`${shop.url}/report`);
    assert.equal(res.status, 200);
    const header = sent.find((hs) => hs.has("PAYMENT-SIGNATURE"))!.get("PAYMENT-SIGNATURE")!;
    const [before] = await balances(agent.address);
    const replay = await fetch(`${shop.url}/report`, { headers: { "PAYMENT-SIGNATURE": header } });
    assert.equal(replay.status, 402);
    assert.equal(decodePaymentRequiredHeader(replay.headers.get("PAYMENT-REQUIRED")!).error, "invalid_exact_evm_nonce_already_used");
    // The same payload straight to the facilitator: verify and settle refuse it as x402 does.
    const payload = JSON.parse(Buffer.from(header, "base64").toString());
    const body = { x402Version: 2, paymentPayload: payload, paymentRequirements: payload.accepted };
    assert.include((await h.api.post("/x402/verify").send(body)).body, { isValid: false, invalidReason: "invalid_exact_evm_nonce_already_used" });
    assert.include((await h.api.post("/x402/settle").send(body)).body, {
      success: false,
      errorReason: "invalid_exact_evm_nonce_already_used",
      transaction: "",
    });

    // Expired: an authorization signed with a validBefore already passed.
    const authorization = { from: agent.address, to: payTo, value: REPORT_PRICE.units, validAfter: 0n, validBefore: 1n, nonce: `0x${"cd".repeat(32)}` as Hex };
    const signature = await agent.signTypedData(
      transferAuthorizationTypedData(tokenDomain(84532, usdc(), h.service.deployment.token.eip712), authorization) as never,
    );
    const expired = {
      ...payload,
      payload: { signature, authorization: { ...authorization, value: String(authorization.value), validAfter: "0", validBefore: "1" } },
    };
    const expiredBody = { x402Version: 2, paymentPayload: expired, paymentRequirements: payload.accepted };
    const reason = "invalid_exact_evm_payload_authorization_valid_before";
    assert.include((await h.api.post("/x402/verify").send(expiredBody)).body, { isValid: false, invalidReason: reason });
    assert.include((await h.api.post("/x402/settle").send(expiredBody)).body, { success: false, errorReason: reason, transaction: "" });
    assert.deepEqual(await balances(agent.address), [before]);
  });

  it("a Safe (ERC-1271) pays as an agent", async () => {
    const owner = h.chain.accounts[LOCAL_ROLES.firstUser + 3]!;
    const infra = await deploySafeInfrastructure(h.chain, owner);
    const safe = await createSafe(h.chain, infra, owner, [owner], 1);
    await send(h.chain, agents()[0]!, { address: usdc(), abi: erc20Abi, functionName: "transfer", args: [safe, 1_000_000n] });
    const safeSigner = {
      address: safe,
      signTypedData: (typed: Parameters<typeof hashTypedData>[0]) => safeMessageSignature(h.chain, safe, [owner], hashTypedData(typed)),
    };
    const [merchantBefore] = await balances(merchant().address);
    const res = await agentFetch(safeSigner as never)(`${shop.url}/report`);
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(getAddress(decodePaymentResponseHeader(res.headers.get("PAYMENT-RESPONSE")!).payer!), safe);
    const [merchantAfter, safeLeft, left] = await balances(merchant().address, safe, payTo);
    assert.deepEqual([merchantAfter! - merchantBefore!, safeLeft, left], [REPORT_PRICE.units - fee, 1_000_000n - REPORT_PRICE.units, 0n]);
  });

  it("a front-run straight to USDC between verify and settle: the funds still end split and the agent is answered success; the verdict is valid once final", async () => {
    const agent = agents()[1]!;
    const [merchantBefore, feesBefore] = await balances(merchant().address, feeCollector());
    const sent: Headers[] = [];
    beforeSettle = async () => {
      const header = sent.find((hs) => hs.has("PAYMENT-SIGNATURE"))!.get("PAYMENT-SIGNATURE")!;
      const p = JSON.parse(Buffer.from(header, "base64").toString()).payload as { signature: Hex; authorization: Record<string, string> };
      const a = p.authorization;
      await send(h.chain, frontRunner(), {
        address: usdc(),
        abi: fiatTokenAbi,
        functionName: "transferWithAuthorization",
        args: [a.from as Address, a.to as Address, BigInt(a.value!), BigInt(a.validAfter!), BigInt(a.validBefore!), a.nonce as Hex, p.signature],
      });
      assert.equal((await balances(payTo))[0], REPORT_PRICE.units, "the front-run left the funds at the receiver, unsplit");
    };
    const res = await agentFetch(eoaSigner(agent, h.chain.publicClient), sent)(`${shop.url}/report`);
    assert.equal(res.status, 200, await res.clone().text());
    const settlement = decodePaymentResponseHeader(res.headers.get("PAYMENT-RESPONSE")!);
    assert.isTrue(settlement.success);
    assert.equal(getAddress(settlement.payer!), agent.address);
    const [merchantAfter, feesAfter, left] = await balances(merchant().address, feeCollector(), payTo);
    assert.deepEqual([merchantAfter! - merchantBefore!, feesAfter! - feesBefore!, left], [REPORT_PRICE.units - fee, fee, 0n]);
    await h.chain.mine(2);
    const v = await verdict({ tx_hash: settlement.transaction, nonce: nonceOf(sent).nonce, recipient: merchant().address });
    assert.include(v.body, { valid: true, amount_units: "10000" });
  });

  it("a front-run landing after settle's own verify, before its send: the settlement cannot be sent, the funds are split and the agent is answered success", async () => {
    const agent = agents()[2]!;
    const res402 = await fetch(`${shop.url}/report`);
    const requirements = decodePaymentRequiredHeader(res402.headers.get("PAYMENT-REQUIRED")!).accepts[0]!;
    const client = new x402Client().register(X402_NETWORK, new ExactEvmClientScheme(eoaSigner(agent, h.chain.publicClient)));
    const payload = await client.createPaymentPayload({ x402Version: 2, resource: { url: `${shop.url}/report` }, accepts: [requirements] } as never);
    const p = payload.payload as { signature: Hex; authorization: Record<string, string> };
    const a = p.authorization;
    // The service's own parts, with a sender that lets the front-runner in just before it sends.
    const real = (h.service.receiverSplitter as unknown as { deps: { sender: ReceiverSender } }).deps.sender;
    const frontRunFirst = {
      price: (data: Hex) => real.price(data),
      send: async (data: Hex, maxGas?: bigint) => {
        await send(h.chain, frontRunner(), {
          address: usdc(),
          abi: fiatTokenAbi,
          functionName: "transferWithAuthorization",
          args: [a.from as Address, a.to as Address, BigInt(a.value!), BigInt(a.validAfter!), BigInt(a.validBefore!), a.nonce as Hex, p.signature],
        });
        return real.send(data, maxGas);
      },
    };
    const facilitator = new X402Facilitator({
      chain: { client: h.service.client, deployment: h.service.deployment, finality: h.service.config.finality },
      watches: new DepositWatches(h.database),
      answers: new X402Answers(h.database),
      receivers: new X402ReceiverStore(h.database),
      settlements: h.service.depositSettler,
      receiverSender: frontRunFirst,
      receiverSplitter: h.service.receiverSplitter,
      submitter: () => h.service.x402.supported().signers["eip155:*"]![0] as Address,
      maxSettlementGas: 400_000n,
      minReceiverUnits: h.service.config.payments.minUnits,
      settleWaitMs: 30_000,
      pollMs: 50,
    });
    const [merchantBefore, feesBefore] = await balances(merchant().address, feeCollector());
    const settled = await facilitator.settle({ x402Version: 2, paymentPayload: payload, paymentRequirements: requirements } as never);
    assert.include(settled, { success: true, payer: agent.address, network: X402_NETWORK });
    const receipt = await h.chain.publicClient.getTransactionReceipt({ hash: settled.transaction as Hex });
    assert.equal(getAddress(receipt.from), frontRunner().address, "the transaction named is the one that moved the agent's funds");
    const [merchantAfter, feesAfter, left] = await balances(merchant().address, feeCollector(), payTo);
    assert.deepEqual([merchantAfter! - merchantBefore!, feesAfter! - feesBefore!, left], [REPORT_PRICE.units - fee, fee, 0n]);
  });

  it("a plain transfer into a receiver ends split, found by the deposit settler's read of the token's Transfer logs, with no call from anyone", async () => {
    const [merchantBefore, feesBefore] = await balances(merchant().address, feeCollector());
    await h.service.depositSettler.tick(); // the log cursor stands before the transfer
    await send(h.chain, agents()[2]!, { address: usdc(), abi: erc20Abi, functionName: "transfer", args: [payTo, 1_000_000n] });
    // The receivers' own round (its backstop not due) sends nothing: the log read is what finds it.
    assert.lengthOf((await h.service.receiverSplitter.tick()).sent, 0);
    await h.service.depositSettler.tick();
    await h.chain.mine(1);
    const [merchantAfter, feesAfter, left] = await balances(merchant().address, feeCollector(), payTo);
    assert.deepEqual([merchantAfter! - merchantBefore!, feesAfter! - feesBefore!, left], [980_000n, 20_000n, 0n]);
  });

  it("receivers nobody funded cost the backstop nothing and are forgotten after X402_RECEIVER_IDLE_SECONDS; a funded one is walked and kept; asking again restores one", async () => {
    // A stranger's random recipients, each a receiver row (the merchant's own, payTo, is not funded yet either).
    const strangers = [50, 51, 52, 53, 54].map((i) => localAccount(i).address);
    for (const recipient of strangers) assert.equal((await h.api.post("/v1/x402/receivers").send({ recipient })).status, 200);
    assert.equal(await rows("x402_receivers"), 6);
    const balanceReads = () => h.proxy.contractCalls.filter((c) => c.selector === "0x70a08231" && c.to === usdc().toLowerCase()).length;

    // The backstop's round reads no balance of a receiver nobody funded.
    h.proxy.reset();
    h.clock.advance(RECEIVER_SWEEP_EVERY_MS / 1000 + 1);
    await h.service.receiverSplitter.tick();
    assert.equal(balanceReads(), 0, "the backstop walks no receiver nobody funded");

    // Funds arrive in the merchant's receiver: the token's logs say so, and it is funded from now on.
    await h.service.depositSettler.tick();
    await send(h.chain, agents()[2]!, { address: usdc(), abi: erc20Abi, functionName: "transfer", args: [payTo, 1_000_000n] });
    await h.service.depositSettler.tick();
    // The split final under the tests' FINALITY (2 confirmations): its follower reads nothing as mined before.
    await h.chain.mine(2);

    // The idle time passes: the receivers nobody funded are forgotten, the funded one is kept and walked.
    h.clock.advance(h.service.config.x402.receiverIdleSeconds + 61);
    h.proxy.reset();
    await h.service.receiverSplitter.tick();
    assert.equal(await rows("x402_receivers"), 1, "only the funded receiver is kept");
    assert.equal(balanceReads(), 1, "the backstop reads the funded receiver's balance");
    const [kept] = await h.database.query<{ receiver: string }>("SELECT receiver FROM x402_receivers");
    assert.equal(kept!.receiver, payTo.toLowerCase());

    // Derived, a forgotten receiver comes back by asking again.
    const again = await h.api.post("/v1/x402/receivers").send({ recipient: strangers[0] });
    assert.equal(again.status, 200);
    assert.equal(await rows("x402_receivers"), 2);
  });

  it("a receiver is funded only when a payment through it settles: a stranger's 50 units (or 1) leave it out of the backstop and forgotten", async () => {
    const ask = async (recipient: Address) => (await h.api.post("/v1/x402/receivers").send({ recipient })).body.pay_to as Address;
    const [dusted, fifty] = [await ask(localAccount(60).address), await ask(localAccount(61).address)];
    await h.service.depositSettler.tick(); // the log cursor stands before the transfers
    // 49 units in two transfers, and 50 in two transfers of one round: neither is worth a split, so no payment settles.
    for (const [to, units] of [
      [dusted, 1n],
      [dusted, 48n],
      [fifty, 25n],
      [fifty, 25n],
    ] as const) {
      await send(h.chain, agents()[2]!, { address: usdc(), abi: erc20Abi, functionName: "transfer", args: [to, units] });
    }
    await h.service.depositSettler.tick();
    await h.chain.mine(3);
    const balanceReads = () => h.proxy.contractCalls.filter((c) => c.selector === "0x70a08231" && c.to === usdc().toLowerCase());
    h.clock.advance(h.service.config.x402.receiverIdleSeconds + 61);
    h.proxy.reset();
    await h.service.receiverSplitter.tick();
    assert.equal(balanceReads().length, 0, "the backstop reads no receiver a stranger only sent to");
    const kept = await h.database.query<{ receiver: string }>("SELECT receiver FROM x402_receivers WHERE receiver = ANY($1::text[])", [
      [dusted.toLowerCase(), fifty.toLowerCase()],
    ]);
    assert.deepEqual(kept, [], "the receivers strangers kept alive with small transfers are forgotten: their places are free again");
  });

  it("a caller holds at most X402_UNFUNDED_RECEIVERS_PER_CALLER receivers nobody funded: past it RATE_LIMITED until its oldest is forgotten; others, and receivers it knows, still answered", async () => {
    const bounded = await h.another({ X402_UNFUNDED_RECEIVERS_PER_CALLER: "2", TRUST_PROXY: "1" });
    const ask = (caller: string, recipient: Address) => supertest(bounded.app).post("/v1/x402/receivers").set("X-Forwarded-For", caller).send({ recipient });
    const [r1, r2, r3] = [70, 71, 72].map((i) => localAccount(i).address);
    assert.equal((await ask("203.0.113.5", r1!)).status, 200);
    assert.equal((await ask("203.0.113.5", r2!)).status, 200);
    const refused = await ask("203.0.113.5", r3!);
    assert.equal(refused.status, 429);
    assert.deepInclude(refused.body, { error: "RATE_LIMITED", action: "RETRY" });
    assert.equal(refused.body.retry_after, bounded.config.x402.receiverIdleSeconds, "until the caller's oldest receiver is forgotten");
    assert.equal((await ask("203.0.113.5", r1!)).status, 200, "a receiver it holds is answered again");
    assert.equal((await ask("198.51.100.6", r3!)).status, 200, "another caller is not held back");
    assert.equal(await rows("x402_receivers"), 4, "the merchant's own, and three");
    h.clock.advance(bounded.config.x402.receiverIdleSeconds + 1);
    assert.equal((await ask("203.0.113.5", localAccount(73).address)).status, 200, "its places free as its receivers idle out");
  });

  it("a ReceiverPaid for another token naming the nonce is not the payment's split: the verdict is not valid while the USDC sits unsplit, and valid once split", async () => {
    const agent = agents()[1]!;
    const attacker = frontRunner();
    const fake = await deployTestContract(h.chain, attacker, fakeAuthorizationTokenAbi, "FakeAuthorizationToken", "FakeAuthorizationToken.sol", []);
    const authorization = {
      from: agent.address,
      to: payTo,
      value: REPORT_PRICE.units,
      validAfter: 0n,
      validBefore: 2n ** 40n,
      nonce: `0x${"ee".repeat(32)}` as Hex,
    };
    const signature = await agent.signTypedData(
      transferAuthorizationTypedData(tokenDomain(84532, usdc(), h.service.deployment.token.eip712), authorization) as never,
    );
    const a = authorization;
    // One transaction: the agent's authorization straight to USDC (its funds land unsplit in the
    // receiver), and X402Receivers.settle with a token that accepts anything, naming the same nonce.
    const usdcCall = encodeFunctionData({
      abi: fiatTokenAbi,
      functionName: "transferWithAuthorization",
      args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, signature],
    });
    const fakeSettle = encodeFunctionData({
      abi: x402ReceiversAbi,
      functionName: "settle",
      args: [fake, merchant().address, agent.address, a.value, a.validAfter, a.validBefore, a.nonce, signature],
    });
    const receipt = await send(h.chain, attacker, {
      address: MULTICALL3,
      abi: multicall3Abi,
      functionName: "aggregate3",
      args: [
        [
          { target: usdc(), allowFailure: false, callData: usdcCall },
          { target: receivers(), allowFailure: false, callData: fakeSettle },
        ],
      ],
    });
    assert.equal((await balances(payTo))[0], a.value, "the USDC sits in the receiver, unsplit");
    await h.chain.mine(3);
    const body = { tx_hash: receipt.transactionHash, nonce: a.nonce, recipient: merchant().address };
    assert.deepEqual((await verdict(body)).body, { valid: false, code: "PAYMENT_CONFIRMING" }, "not split: no verdict yet");
    await send(h.chain, attacker, { address: receivers(), abi: x402ReceiversAbi, functionName: "split", args: [usdc(), merchant().address] });
    await h.chain.mine(3);
    assert.include((await verdict(body)).body, { valid: true, payer: agent.address });
  });

  it("a ReceiverSplit of another token from the same receiver (splitAsset) is not the USDC's split: the verdict waits while the USDC sits unsplit", async () => {
    const agent = agents()[1]!;
    const attacker = frontRunner();
    const fake = await deployTestContract(h.chain, attacker, fakeAuthorizationTokenAbi, "FakeAuthorizationToken", "FakeAuthorizationToken.sol", []);
    const a = { from: agent.address, to: payTo, value: REPORT_PRICE.units, validAfter: 0n, validBefore: 2n ** 40n, nonce: `0x${"ef".repeat(32)}` as Hex };
    const signature = await agent.signTypedData(transferAuthorizationTypedData(tokenDomain(84532, usdc(), h.service.deployment.token.eip712), a) as never);
    // The agent's authorization straight to USDC (its funds land unsplit in the receiver), then a
    // split of the receiver's balance of a token that reports anything: a ReceiverSplit naming the receiver.
    const receipt = await send(h.chain, attacker, {
      address: usdc(),
      abi: fiatTokenAbi,
      functionName: "transferWithAuthorization",
      args: [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, signature],
    });
    const forged = await send(h.chain, attacker, {
      address: receivers(),
      abi: x402ReceiversAbi,
      functionName: "splitAsset",
      args: [usdc(), merchant().address, fake],
    });
    const [split] = parseEventLogs({ abi: x402ReceiversAbi, eventName: "ReceiverSplit", logs: forged.logs });
    assert.equal(getAddress(split!.args.receiver), payTo, "the forged split names the USDC receiver");
    assert.equal((await balances(payTo))[0], a.value, "the USDC sits in the receiver, unsplit");
    await h.chain.mine(3);
    const body = { tx_hash: receipt.transactionHash, nonce: a.nonce, recipient: merchant().address };
    assert.deepEqual((await verdict(body)).body, { valid: false, code: "PAYMENT_CONFIRMING" }, "not split: no verdict yet");
    await send(h.chain, attacker, { address: receivers(), abi: x402ReceiversAbi, functionName: "split", args: [usdc(), merchant().address] });
    await h.chain.mine(3);
    assert.include((await verdict(body)).body, { valid: true, payer: agent.address });
  });

  it("dust in a receiver waits: a split that would cost the relayer more than its fee is not sent, and the next transfer worth it splits the whole balance", async () => {
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const { pay_to } = (await h.api.post("/v1/x402/receivers").send({ recipient })).body as { pay_to: Address };
    await h.service.depositSettler.tick();
    await send(h.chain, agents()[2]!, { address: usdc(), abi: erc20Abi, functionName: "transfer", args: [pay_to, 100n] });
    await h.service.depositSettler.tick();
    await h.chain.mine(1);
    assert.deepEqual(await balances(pay_to, recipient), [100n, 0n], "a fee of 2 units pays for no transaction: nothing sent");
    await send(h.chain, agents()[2]!, { address: usdc(), abi: erc20Abi, functionName: "transfer", args: [pay_to, 1_000_000n] });
    await h.service.depositSettler.tick();
    await h.chain.mine(1);
    const fee = (1_000_100n * 200n) / 10_000n;
    assert.deepEqual(await balances(pay_to, recipient), [0n, 1_000_100n - fee]);
  });

  it("splitReceivers, given receivers that received funds (what the Transfer-log detection hands it): splits each that holds any, deploying it first, and skips the empty and other tokens", async () => {
    const other = frontRunner().address;
    const otherReceiver = await receiverOffline(other);
    assert.equal(await h.chain.publicClient.getCode({ address: otherReceiver }), undefined, "not deployed yet");
    await send(h.chain, agents()[2]!, { address: usdc(), abi: erc20Abi, functionName: "transfer", args: [otherReceiver, 500_000n] });
    const [otherBefore, feesBefore] = await balances(other, feeCollector());
    const sent = await h.service.receiverSplitter.splitReceivers([
      { receiver: otherReceiver, recipient: other, token: usdc() },
      { receiver: payTo, recipient: merchant().address, token: usdc() }, // empty: nothing sent
      { receiver: payTo, recipient: merchant().address, token: receivers() }, // another token: not ours to split
    ]);
    assert.lengthOf(sent, 1);
    assert.equal((await h.chain.publicClient.waitForTransactionReceipt({ hash: sent[0]! })).status, "success");
    const [otherAfter, feesAfter, left] = await balances(other, feeCollector(), otherReceiver);
    assert.deepEqual([otherAfter! - otherBefore!, feesAfter! - feesBefore!, left], [490_000n, 10_000n, 0n]);
  });

  it("a payTo that is no receiver this service knows is refused at verify, in x402's shape", async () => {
    const unknown = await receiverOffline(frontRunner().address);
    const stranger = await listenOn(staticPaywall(service.url, unknown));
    try {
      const res = await agentFetch(eoaSigner(agents()[0]!, h.chain.publicClient))(`${stranger.url}/report`);
      assert.equal(res.status, 402);
      assert.equal(decodePaymentRequiredHeader(res.headers.get("PAYMENT-REQUIRED")!).error, "invalid_payment_requirements");
    } finally {
      await stranger.close();
    }
  });

  it("a receiver payment below PAYMENT_MIN_AMOUNT is refused at verify (each costs the relayer a settlement), in x402's shape; nothing moves", async () => {
    const cheap = await listenOn(staticPaywall(service.url, payTo, "$0.001"));
    try {
      const [before] = await balances(agents()[0]!.address);
      const res = await agentFetch(eoaSigner(agents()[0]!, h.chain.publicClient))(`${cheap.url}/report`);
      assert.equal(res.status, 402);
      assert.equal(decodePaymentRequiredHeader(res.headers.get("PAYMENT-REQUIRED")!).error, "invalid_payment_requirements");
      assert.deepEqual(await balances(agents()[0]!.address), [before]);
    } finally {
      await cheap.close();
    }
  });

  it("the static paywall printed in docs/merchants.md, run as printed, sells the report to an agent", async () => {
    const doc = readFileSync(new URL("../../docs/merchants.md", import.meta.url), "utf8");
    const section = doc.slice(doc.indexOf("## Accept x402 payments"));
    const printed = /```ts\n([\s\S]*?)```/.exec(section)![1]!;
    assert.isAtMost(printed.trim().split("\n").length, 19, "about 15 lines");
    assert.include(printed, 'const PAY_TO = "0xYourReceiver"', "a static payTo string");
    const source = printed
      .replace('"0xYourReceiver"', JSON.stringify(payTo))
      .replace('"http://127.0.0.1:8787/x402"', JSON.stringify(`${service.url}/x402`))
      .replace("app.listen(3000);", "export default app;");
    const file = join(dirname(fileURLToPath(import.meta.url)), `.merchants-static-paywall-${process.pid}.ts`);
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
      const res = await agentFetch(eoaSigner(agents()[2]!, h.chain.publicClient))(`${printedShop.url}/report`);
      assert.equal(res.status, 200, await res.clone().text());
      const [merchantAfter] = await balances(merchant().address);
      assert.equal(merchantAfter! - merchantBefore!, REPORT_PRICE.units - fee);
    } finally {
      await printedShop.close();
    }
  });
});

describe("x402 to a receiver with the smallest signature gas cap: the first settlement's deployment is within the ceiling", function () {
  this.timeout(120_000);
  // Ceiling 200,000 + 1: a settlement to a deployed receiver fits (116,310 + 20%), its first one (234,346,
  // deploying it) fits only with the deployment's allowance.
  const h = useService({ SIGNATURE_GAS_CAP: "1" });

  it("an agent pays a receiver nobody deployed yet, and then again", async function () {
    // About the release build's gas (RECEIVER_DEPLOY_GAS is measured on it): an instrumented receiver
    // is larger code, whose deployment spends more than the allowance by design.
    if (COVERAGE_BUILD) this.skip();
    const merchant = h.chain.accounts[LOCAL_ROLES.firstUser + 6]!.address;
    const { body } = await h.api.post("/v1/x402/receivers").send({ recipient: merchant });
    assert.equal(await h.chain.publicClient.getCode({ address: body.pay_to }), undefined);
    const service = await listenOn(h.service.app);
    const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: `${service.url}/x402` })).register(X402_NETWORK, new ExactEvmServerScheme());
    const app = express();
    app.use(
      paymentMiddleware(
        { "GET /report": { accepts: { scheme: "exact", network: X402_NETWORK, price: REPORT_PRICE.x402, payTo: body.pay_to }, description: "Today's report" } },
        server,
      ),
    );
    app.get("/report", (_req, res) => {
      res.json({ report: "paid content" });
    });
    const shop = await listenOn(app);
    try {
      for (const round of ["first (deploys the receiver)", "second"]) {
        const res = await agentFetch(eoaSigner(h.chain.accounts[LOCAL_ROLES.firstUser]!, h.chain.publicClient))(`${shop.url}/report`);
        assert.equal(res.status, 200, `${round}: ${await res.clone().text()}`);
      }
      assert.notEqual(await h.chain.publicClient.getCode({ address: body.pay_to }), undefined);
    } finally {
      await shop.close();
      await service.close();
    }
  });
});
