import { assert } from "chai";
import type { PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme as ExactEvmClientScheme } from "@x402/evm/exact/client";
import { x402Client } from "@x402/fetch";
import supertest from "supertest";
import { encodeAbiParameters, encodeEventTopics, erc20Abi, numberToHex, pad, parseAbiParameters, toFunctionSelector, type Address, type Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { RecurringChargesReader } from "../../src/chain/contracts/recurring-charges.js";
import { fiatTokenAbi, splitterAbi, x402ReceiversAbi } from "../../src/generated/contracts.js";
import { X402ReceiversReader } from "../../src/chain/contracts/x402-receivers.js";
import { chargedInAnswer } from "../../src/recurring/charge-answers.js";
import { paymentKeyOf } from "../../src/payments/verify.js";
import { DepositWatches } from "../../src/store/deposit-watches.js";
import type { Service } from "../../src/service.js";
import { exchangeWithdrawals, payIntent, type PayBlock } from "../helpers/payments.js";
import type { RpcProxy } from "../helpers/rpc-proxy.js";
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
  /** The other nodes 20 ms slower, and a service built on that: `first` is the node its reads go to. */
  async function readFirst(first: RpcProxy) {
    for (const node of h.nodes) node.latencyMs = node === first ? 0 : 20;
    built = await h.another();
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
    await service()
      .depositSettler.tick()
      .catch(() => undefined);
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
    for (const node of h.nodes) node.latencyMs = node === h.nodes[0] ? 0 : 20;
    const started = await h.another();
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
