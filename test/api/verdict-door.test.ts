import { assert } from "chai";
import type { PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme as ExactEvmClientScheme } from "@x402/evm/exact/client";
import { x402Client } from "@x402/fetch";
import supertest from "supertest";
import { encodeAbiParameters, encodeEventTopics, erc20Abi, numberToHex, pad, parseAbiParameters, toFunctionSelector, type Address, type Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { CHARGED_EVENT, RecurringChargesReader } from "../../src/chain/contracts/recurring-charges.js";
import { fiatTokenAbi, splitterAbi, x402ReceiversAbi } from "../../src/generated/contracts.js";
import { X402ReceiversReader } from "../../src/chain/contracts/x402-receivers.js";
import { chargedInAnswer } from "../../src/recurring/charge-answers.js";
import { paymentKeyOf } from "../../src/payments/verify.js";
import { DepositWatches } from "../../src/store/deposit-watches.js";
import type { Service } from "../../src/service.js";
import { allowCharges, visitLink } from "../helpers/link-subscribe.js";
import { exchangeWithdrawals, payIntent, type PayBlock } from "../helpers/payments.js";
import type { RpcProxy } from "../helpers/rpc-proxy.js";
import { SLOWER_MS, serviceReadingFirst } from "../helpers/read-first.js";
import { RECEIVER_HOST } from "../helpers/receiver.js";
import { send } from "../helpers/tx.js";
import { useService } from "../helpers/service.js";
import { eoaSigner, X402_NETWORK } from "../helpers/x402-parties.js";

/**
 * The one door (DESIGN v7, "One door for verdicts"): three nodes in front of one chain, one of them
 * lying, and each verdict path that stood on one node's word before stands on the majority's now.
 */
describe("one door for every verdict: three nodes, one lying", function () {
  this.timeout(90_000);
  /** Runs once, just before the relayer's next broadcast (between a settlement's simulation and its mining). */
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
  const liar = () => h.chain.accounts[LOCAL_ROLES.firstUser + 6]!.address;
  const token = () => h.service.deployment.token.address;
  const splitter = () => h.service.deployment.contracts.Splitter.address;
  const withdraw = exchangeWithdrawals(() => h.chain, buyer, token, 970);
  let built: Service | null = null;
  const service = () => built ?? h.service;
  const api = () => supertest.agent(service().app);
  /** The other nodes 200 ms slower, and a service built on that, its ranking asserted: `first` is the node its reads go to. */
  async function readFirst(first: RpcProxy) {
    built = await serviceReadingFirst(h, first);
  }
  afterEach(() => {
    built = null;
    onBroadcast = null;
    for (const node of h.nodes) node.latencyMs = 0;
  });
  async function create(amount: string) {
    const res = await api().post("/v1/payments").send({ recipient: merchant().address, amount });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { intent: string; reference: Hex; pay: Required<PayBlock> };
  }

  it("an x402 settle whose success receipt one node forged, for a settlement that reverted: no success", async () => {
    await readFirst(h.nodes[0]!);
    const created = await create("0.25");
    const requirements: PaymentRequirements = {
      scheme: "exact",
      network: X402_NETWORK,
      amount: created.pay.amount_units,
      asset: token(),
      payTo: created.pay.deposit_address,
      maxTimeoutSeconds: 60,
      extra: { name: "USDC", version: "2" },
    };
    const client = new x402Client().register(X402_NETWORK, new ExactEvmClientScheme(eoaSigner(buyer(), h.chain.publicClient)));
    const payload = await client.createPaymentPayload({ x402Version: 2, resource: { url: "http://merchant.test/report" }, accepts: [requirements] } as never);
    const { authorization } = payload.payload as { authorization: { from: Address; nonce: Hex } };
    // USDC pauses between the simulation and the mining: the settlement reverts on chain.
    onBroadcast = () => send(h.chain, h.chain.usdcRoles.pauser, { address: token(), abi: fiatTokenAbi, functionName: "pause", args: [] }).then(() => {});
    // Node 0 serves the reverted settlement as a success holding every log the proof reads.
    const key = paymentKeyOf(token(), { recipient: merchant().address, amountUnits: 250_000n, reference: created.reference });
    const forgedLogs = (receipt: { blockHash: Hex; blockNumber: Hex; transactionHash: Hex; transactionIndex: Hex }) =>
      [
        {
          address: token(),
          topics: encodeEventTopics({
            abi: fiatTokenAbi,
            eventName: "AuthorizationUsed",
            args: { authorizer: authorization.from, nonce: authorization.nonce },
          }),
          data: "0x",
        },
        {
          address: token(),
          topics: encodeEventTopics({ abi: erc20Abi, eventName: "Transfer", args: { from: authorization.from, to: created.pay.deposit_address } }),
          data: encodeAbiParameters(parseAbiParameters("uint256"), [250_000n]),
        },
        {
          address: splitter(),
          topics: encodeEventTopics({
            abi: splitterAbi,
            eventName: "Paid",
            args: { paymentKey: key, paymentReference: created.reference, recipient: merchant().address },
          }),
          data: encodeAbiParameters(parseAbiParameters("address, address, uint256, uint256"), [created.pay.deposit_address, token(), 250_000n, 5_000n]),
        },
      ].map((l, i) => ({ ...l, ...receipt, logIndex: numberToHex(i), removed: false }));
    h.nodes[0]!.rewrite = (request, result) => {
      const r = result as { status?: Hex; to?: string; blockHash: Hex; blockNumber: Hex; transactionHash: Hex; transactionIndex: Hex } | null;
      if (request.method !== "eth_getTransactionReceipt" || !r || r.status !== "0x0" || r.to?.toLowerCase() !== splitter().toLowerCase()) return result;
      return { ...r, status: "0x1", logs: forgedLogs(r) };
    };
    try {
      const settled = await api().post("/x402/settle").send({ x402Version: 2, paymentPayload: payload, paymentRequirements: requirements });
      assert.isAtLeast(h.nodes[0]!.lied("eth_getTransactionReceipt"), 1, "node 0 served the reverted settlement as a success");
      assert.notEqual(settled.body.success, true, JSON.stringify(settled.body));
      assert.include(settled.body, { success: false, errorReason: "invalid_transaction_state" });
    } finally {
      await send(h.chain, h.chain.usdcRoles.pauser, { address: token(), abi: fiatTokenAbi, functionName: "unpause", args: [] });
    }
  });

  it("ALREADY_CHARGED asked with a charged block from one node and no Charged log on any node: not ALREADY_CHARGED", async () => {
    await h.chain.mine(5);
    const head = await h.chain.publicClient.getBlockNumber();
    const terms = {
      payer: buyer().address,
      recipient: merchant().address,
      token: token(),
      amount: 1_000_000n,
      period: 3600n,
      start: 0n,
      end: 0n,
      salt: pad("0x1", { size: 32 }),
      feeBps: 200,
      networkFee: 0n,
      maxGasReimbursement: 0n,
    };
    const { client, deployment, config } = service();
    const chain = { client, finality: config.finality, contract: RecurringChargesReader.of({ client, deployment }) };
    const answer = await chargedInAnswer(chain, terms, pad("0xabc", { size: 32 }), 0n, head - 3n);
    assert.equal(answer.status, "CONFIRMING");
    assert.isFalse(answer.already_paid);
  });

  it("a Charged log forged by the node read first, for a pending link subscriber whose first charge was never sent: it stays pending and nothing is announced; with honest nodes a mined first charge makes it active", async () => {
    await readFirst(h.nodes[0]!);
    const recurring = h.service.deployment.contracts.RecurringCharges.address.toLowerCase();
    const link = await api()
      .post("/v1/links")
      .send({ recipient: merchant().address, amount: "2.50", period: 3600, notify_url: `https://${RECEIVER_HOST}/hooks/door` });
    assert.equal(link.status, 200, JSON.stringify(link.body));
    const state = async (id: Hex) =>
      (await h.database.query<{ state: string }>("SELECT state FROM link_subscriptions WHERE subscription_id = $1", [id]))[0]?.state;
    const created = async (id: Hex) =>
      (await h.database.query("SELECT 1 FROM webhook_deliveries WHERE event_type = 'subscription.created' AND subscription_id = $1", [id])).length;

    // Every node refuses the charge's simulation: the subscriber is kept pending, its first charge never sent.
    const unpaid = h.chain.accounts[LOCAL_ROLES.firstUser + 3]!;
    const approval = await send(h.chain, unpaid, {
      address: token(),
      abi: erc20Abi,
      functionName: "approve",
      args: [h.service.deployment.contracts.RecurringCharges.address, 10n ** 9n],
    });
    for (const node of h.nodes) node.refuse = (r) => r.method === "eth_call" && (r.params?.[0] as { to?: string } | undefined)?.to?.toLowerCase() === recurring;
    const pending = await visitLink(h, link.body.link, unpaid, { settle: false, api: api() });
    for (const node of h.nodes) node.refuse = null;
    assert.oneOf(pending.subscribed.body.error, ["RPC_ERROR", "RPC_BUSY"], JSON.stringify(pending.subscribed.body));
    const [row] = await h.database.query<{ subscription_id: Hex }>("SELECT subscription_id FROM link_subscriptions WHERE state = 'pending'");
    const unpaidId = row!.subscription_id;
    await h.chain.mine(5);
    // Node 0 answers the follower's log reads with a Charged log of that subscription, in a real final
    // block and transaction (the payer's approval) that hold no such log.
    const forged = {
      address: recurring,
      topics: encodeEventTopics({ abi: [CHARGED_EVENT], eventName: "Charged", args: { subscriptionId: unpaidId, periodIndex: 0n, payer: unpaid.address } }),
      data: encodeAbiParameters(parseAbiParameters("address, address, uint256, uint256, uint256, uint256, uint256"), [
        merchant().address,
        token(),
        2_500_000n,
        2_445_000n,
        55_000n,
        0n,
        0n,
      ]),
      blockHash: approval.blockHash,
      blockNumber: numberToHex(approval.blockNumber),
      transactionHash: approval.transactionHash,
      transactionIndex: numberToHex(approval.transactionIndex),
      logIndex: "0x7",
      removed: false,
    };
    const chargedTopic = forged.topics[0]!;
    h.nodes[0]!.rewrite = (request, result) => {
      const filter = request.params?.[0] as { address?: string | string[]; topics?: (Hex | Hex[] | null)[]; fromBlock?: Hex; toBlock?: Hex } | undefined;
      if (request.method !== "eth_getLogs" || !Array.isArray(result) || !filter) return result;
      if (![filter.address ?? []].flat().some((a) => a.toLowerCase() === recurring)) return result;
      if (filter.topics?.[0] && ![filter.topics[0]].flat().includes(chargedTopic)) return result;
      const within =
        (!filter.fromBlock || BigInt(filter.fromBlock) <= approval.blockNumber) && (!filter.toBlock || BigInt(filter.toBlock) >= approval.blockNumber);
      return within ? [...result, forged] : result;
    };
    await service().follower.round();
    assert.isAtLeast(h.nodes[0]!.lied("eth_getLogs"), 1, "the follower was served the forged Charged log");
    assert.equal(await state(unpaidId), "pending", "not made active on one node's Charged log");
    assert.equal(await created(unpaidId), 0, "no subscription.created for a charge never made");

    // Honest nodes, and a payer whose first charge is sent and mined: the follower makes it active.
    h.nodes[0]!.rewrite = null;
    const payer = h.chain.accounts[LOCAL_ROLES.firstUser + 4]!;
    await allowCharges(h, payer);
    const paying = await visitLink(h, link.body.link, payer, { settle: false, api: api() });
    assert.equal(paying.subscribed.body.state, "PENDING", JSON.stringify(paying.subscribed.body));
    const paidId = paying.subscribed.body.subscription_id as Hex;
    await h.chain.mine(5);
    await service().follower.round();
    assert.equal(await state(paidId), "active", "active from the majority's Charged log");
    assert.equal(await created(paidId), 1, "subscription.created goes out");
    assert.equal(await state(unpaidId), "pending", "the forged one still waits");
    assert.equal(await created(unpaidId), 0);
  });

  it("a refund target forged by the node read first (the deposit's sender turned into its own address): the majority's target", async () => {
    const a = await create("4");
    const { exchange } = await withdraw(a.pay.deposit_address, 4_000_000n);
    const settlement = await send(h.chain, merchant(), {
      address: a.pay.splitter,
      abi: splitterAbi,
      functionName: "settleDeposit",
      args: [a.pay.token, a.pay.recipient, BigInt(a.pay.amount_units), a.pay.reference],
    });
    await h.chain.mine(2);
    await readFirst(h.nodes[0]!);
    const fromTopic = pad(exchange.address.toLowerCase() as Hex, { size: 32 });
    h.nodes[0]!.rewrite = (request, result) => {
      if (request.method !== "eth_getLogs" || !Array.isArray(result)) return result;
      return (result as { topics: Hex[] }[]).map((l) =>
        l.topics[1]?.toLowerCase() === fromTopic ? { ...l, topics: [l.topics[0]!, pad(liar().toLowerCase() as Hex, { size: 32 }), ...l.topics.slice(2)] } : l,
      );
    };
    const prepared = await api().post("/v1/refunds/prepare").send({ intent: a.intent, tx_hash: settlement.transactionHash, amount: "4" });
    assert.isAtLeast(h.nodes[0]!.lied("eth_getLogs"), 1, "node 0 served the deposit with the forged sender");
    assert.equal(prepared.status, 200, JSON.stringify(prepared.body));
    assert.equal(prepared.body.payer, exchange.address, "the majority's depositor, never the liar's");
    assert.notEqual(prepared.body.payer, liar());
  });

  it("a watch ended by one node's Paid (a payment never made): the watch stays open", async () => {
    const a = await create("2");
    const b = await create("2");
    const paid = await payIntent(h.chain, buyer(), a.pay);
    await h.chain.mine(2);
    await readFirst(h.nodes[0]!);
    const paidLog = paid.logs.find((l) => l.address.toLowerCase() === splitter().toLowerCase())!;
    const bKey = paymentKeyOf(token(), { recipient: b.pay.recipient, amountUnits: BigInt(b.pay.amount_units), reference: b.reference });
    const paidTopic = paidLog.topics[0]!;
    h.nodes[0]!.rewrite = (request, result) => {
      const filter = request.params?.[0] as { address?: string | string[]; topics?: (Hex | Hex[] | null)[] } | undefined;
      const addresses = [filter?.address ?? []].flat().map((x) => x.toLowerCase());
      if (request.method !== "eth_getLogs" || !Array.isArray(result) || !addresses.includes(splitter().toLowerCase())) return result;
      if (![filter?.topics?.[0] ?? []].flat().includes(paidTopic)) return result;
      return [
        ...result,
        {
          address: paidLog.address,
          topics: [paidTopic, bKey, b.reference, ...paidLog.topics.slice(3)],
          data: paidLog.data,
          blockHash: paid.blockHash,
          blockNumber: numberToHex(paid.blockNumber),
          transactionHash: paid.transactionHash,
          transactionIndex: numberToHex(paid.transactionIndex),
          logIndex: numberToHex(paidLog.logIndex),
          removed: false,
        },
      ];
    };
    const watches = new DepositWatches(h.database);
    assert.equal((await watches.find(b.pay.deposit_address))?.status, "open");
    // The round goes on with the logs a majority holds: the liar's Paid is left out, no failure.
    await service().depositSettler.tick();
    assert.isAtLeast(h.nodes[0]!.lied("eth_getLogs"), 1, "the settler was served the forged Paid");
    assert.equal((await watches.find(b.pay.deposit_address))?.status, "open", "not ended on one node's Paid");
  });

  it("code hashes from one lying node: the service starts on the majority's, and payment and receiver addresses are the contracts' own", async () => {
    const selectors = [toFunctionSelector("FORWARDER_CODE_HASH()"), toFunctionSelector("RECEIVER_CODE_HASH()")];
    const honest = await h.chain.publicClient.readContract({ address: splitter(), abi: splitterAbi, functionName: "FORWARDER_CODE_HASH" });
    const receivers = h.service.deployment.contracts.X402Receivers.address;
    const honestReceiver = await h.chain.publicClient.readContract({ address: receivers, abi: x402ReceiversAbi, functionName: "RECEIVER_CODE_HASH" });
    h.nodes[0]!.rewrite = (request, result) => {
      const data = (request.params?.[0] as { data?: Hex } | undefined)?.data ?? "0x";
      return request.method === "eth_call" && selectors.some((s) => data.startsWith(s)) ? pad("0xbad", { size: 32 }) : result;
    };
    // The liar is the node a single read would go to.
    for (const node of h.nodes) node.latencyMs = node === h.nodes[0] ? 0 : SLOWER_MS;
    const started = await h.another();
    assert.isAtLeast(h.nodes[0]!.lied("eth_call"), 2, "the start was served both forged code hashes");
    assert.equal(await started.payments.depositAddresses.codeHash(), honest);
    assert.equal(await X402ReceiversReader.of({ client: started.client, deployment: started.deployment }).codeHash(), honestReceiver);
    const created = await supertest(started.app).post("/v1/payments").send({ recipient: merchant().address, amount: "1" });
    const onChain = await h.chain.publicClient.readContract({
      address: splitter(),
      abi: splitterAbi,
      functionName: "depositAddress",
      args: [token(), merchant().address, 1_000_000n, created.body.reference],
    });
    assert.equal(created.body.pay.deposit_address, onChain);
  });

  it("code hashes with no majority alike (two nodes lying, each its own way): the start refuses, naming the hash", async () => {
    const selector = toFunctionSelector("FORWARDER_CODE_HASH()");
    for (const [i, node] of [h.nodes[0]!, h.nodes[1]!].entries())
      node.rewrite = (request, result) =>
        request.method === "eth_call" && (request.params?.[0] as { data?: Hex })?.data?.startsWith(selector)
          ? pad(numberToHex(0xbad0 + i), { size: 32 })
          : result;
    let refused: unknown = null;
    await h.another().catch((error: unknown) => {
      refused = error;
    });
    assert.instanceOf(refused, Error);
    assert.match((refused as Error).message, /disagree on the payment forwarder's .*code hash/);
  });

  it("a node on another chain: the start refuses, naming its position", async () => {
    h.nodes[1]!.rewrite = (request, result) => (request.method === "eth_chainId" ? "0x1" : result);
    let refused: unknown = null;
    await h.another().catch((error: unknown) => {
      refused = error;
    });
    assert.instanceOf(refused, Error);
    assert.equal((refused as Error).message, "RPC_URLS position 1: the node is on chain 1, not the deployment's 84532 (CHAIN_ID)");
  });

  it("a node that comes back on another chain after failing is asked its chain id first, and never read: payments verify on the other two", async () => {
    const a = await create("3");
    const paid = await payIntent(h.chain, buyer(), a.pay);
    await h.chain.mine(2);
    const verify = () => api().post("/v1/payments/verify").send({ intent: a.intent, tx_hash: paid.transactionHash });
    h.nodes[1]!.down = true;
    assert.include((await verify()).body, { valid: true }, "node 1 down");
    // Back, but now another chain's node behind the same URL.
    h.nodes[1]!.down = false;
    h.clock.advance(61);
    h.nodes[1]!.reset();
    h.nodes[1]!.rewrite = (request, result) => (request.method === "eth_chainId" ? "0x1" : result);
    assert.include((await verify()).body, { valid: true, tx_hash: paid.transactionHash });
    assert.isAtLeast(h.nodes[1]!.count("eth_chainId"), 1, "asked its chain id on its return");
    assert.deepEqual([...h.nodes[1]!.calls.keys()], ["eth_chainId"], "and nothing else");
  });
});
