import { assert } from "chai";
import type { PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme as ExactEvmClientScheme } from "@x402/evm/exact/client";
import { x402Client } from "@x402/fetch";
import supertest from "supertest";
import { numberToHex, pad, type Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { paymentKeyOf } from "../../src/payments/verify.js";
import { useService } from "../helpers/service.js";
import { exchangeWithdrawals, payIntent, type PayBlock } from "../helpers/payments.js";
import { approveThroughSession, subscribe } from "../helpers/recurring.js";
import type { RpcProxy } from "../helpers/rpc-proxy.js";
import { headsRead, serviceReadingFirst } from "../helpers/read-first.js";
import { RECEIVER_HOST } from "../helpers/receiver.js";
import { eoaSigner, X402_NETWORK } from "../helpers/x402-parties.js";
import type { Service } from "../../src/service.js";

/**
 * Several nodes (RPC_URLS) in front of one chain, one of them hostile or failing: a verdict that
 * releases goods or money stands on a majority of them, never on the one node that answered.
 */
describe("several nodes: a majority behind every verdict (RPC_URLS)", function () {
  this.timeout(60_000);
  const h = useService(
    { WEBHOOKS_ALLOW_LOOPBACK: "true" },
    { nodes: 3, deps: () => ({ webhookTransport: { resolve: async () => [{ address: "127.0.0.1", family: 4 }] } }) },
  );
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const token = () => h.service.deployment.token.address;
  const withdraw = exchangeWithdrawals(() => h.chain, buyer, token, 950);

  async function create(amount = "12.5", notify_url?: string) {
    const res = await api()
      .post("/v1/payments")
      .send({ recipient: merchant().address, amount, ...(notify_url ? { notify_url } : {}) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { intent: string; reference: Hex; pay: Required<PayBlock> };
  }
  const verify = (intent: string, tx_hash: Hex) => api().post("/v1/payments/verify").send({ intent, tx_hash });
  const recover = (intent: string) => api().post("/v1/payments/recover").send({ intent });
  /** rpc_disagreements_total by node position, from the operational port's /metrics. */
  async function disagreements(): Promise<Record<string, number>> {
    const text = (await supertest(service().opsApp).get("/metrics")).text;
    return Object.fromEntries([...text.matchAll(/^rpc_disagreements_total\{node="(\d+)"\} (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
  }
  /** The service under test: the harness's, or one built by {@link readFirst}. */
  let built: Service | null = null;
  const service = () => built ?? h.service;
  const api = () => supertest.agent(service().app);
  /** A service whose reads go first to `first` (the others answer 200 ms slower), its ranking asserted. */
  async function readFirst(first: RpcProxy) {
    built = await serviceReadingFirst(h, first);
  }
  afterEach(() => {
    built = null;
    for (const node of h.nodes) node.latencyMs = 0;
  });
  /** Payment A paid and final, and payment B (same merchant and amount, another reference) never paid. */
  async function paidAndUnpaid() {
    const a = await create();
    const b = await create();
    const paid = await payIntent(h.chain, buyer(), a.pay);
    await h.chain.mine(2);
    return { a, b, paid };
  }
  /** A's Paid log as B's: B's key and reference in its topics (what a forging node serves). */
  function forgedPaidLog(log: { topics: Hex[] }, b: { reference: Hex; pay: PayBlock }) {
    const key = paymentKeyOf(token(), { recipient: b.pay.recipient, amountUnits: BigInt(b.pay.amount_units), reference: b.reference });
    return { ...log, topics: [log.topics[0]!, key, b.reference, ...log.topics.slice(3)] };
  }
  /** A node that serves `paidTx`'s receipt with A's Paid log turned into B's. */
  function forgeLogIn(node: RpcProxy, paidTx: Hex, b: { reference: Hex; pay: PayBlock }, splitter: string) {
    node.rewrite = (request, result) => {
      if (request.method !== "eth_getTransactionReceipt" || (request.params?.[0] as string)?.toLowerCase() !== paidTx.toLowerCase() || !result) return result;
      const receipt = result as { logs: { address: string; topics: Hex[] }[] };
      return { ...receipt, logs: receipt.logs.map((l) => (l.address.toLowerCase() === splitter.toLowerCase() ? forgedPaidLog(l, b) : l)) };
    };
  }

  it("a forged log (A's Paid with B's reference and key) on the node read first never verifies B; the node is set aside and counted, and B is a mismatch", async () => {
    const { b, paid } = await paidAndUnpaid();
    await readFirst(h.nodes[0]!);
    forgeLogIn(h.nodes[0]!, paid.transactionHash, b, h.service.deployment.contracts.Splitter.address);
    // The verdict is formed again on the receipt the majority holds: what the transaction is, at once.
    const first = await verify(b.intent, paid.transactionHash);
    assert.deepEqual(first.body, { valid: false, code: "PAYMENT_MISMATCH" });
    assert.deepEqual(await disagreements(), { "0": 1 });
    assert.deepEqual((await verify(b.intent, paid.transactionHash)).body, { valid: false, code: "PAYMENT_MISMATCH" });
  });

  it("a forged receipt (for a transaction that never was) on one node never verifies", async () => {
    const { b, paid } = await paidAndUnpaid();
    await readFirst(h.nodes[0]!);
    const fake = pad("0xf00d", { size: 32 });
    const real = await h.chain.publicClient.request({ method: "eth_getTransactionReceipt", params: [paid.transactionHash] });
    const splitter = h.service.deployment.contracts.Splitter.address.toLowerCase();
    h.nodes[0]!.rewrite = (request, result) =>
      request.method === "eth_getTransactionReceipt" && request.params?.[0] === fake
        ? {
            ...real,
            transactionHash: fake,
            logs: real!.logs.map((l) => ({ ...(l.address.toLowerCase() === splitter ? forgedPaidLog(l as { topics: Hex[] }, b) : l), transactionHash: fake })),
          }
        : result;
    for (let ask = 0; ask < 3; ask++) assert.notEqual((await verify(b.intent, fake)).body.valid, true, `ask ${ask}`);
    assert.deepEqual(await disagreements(), { "0": 1 });
    assert.deepEqual((await verify(b.intent, fake)).body, { valid: false, code: "PAYMENT_NOT_FOUND" });
  });

  it("a forged eth_call (settledBlock) with its forged log on one node never recovers B as valid", async () => {
    const { b, paid } = await paidAndUnpaid();
    const splitter = h.service.deployment.contracts.Splitter.address.toLowerCase();
    const paidLog = paid.logs.find((l) => l.address.toLowerCase() === splitter)!;
    await readFirst(h.nodes[0]!);
    h.nodes[0]!.rewrite = (request, result) => {
      const call = request.params?.[0] as { to?: string } | undefined;
      if (request.method === "eth_call" && call?.to?.toLowerCase() === splitter && (result as Hex) === pad("0x0", { size: 32 }))
        return numberToHex(paid.blockNumber, { size: 32 }); // B "settled" in A's block
      if (request.method === "eth_getLogs" && (result as unknown[]).length === 0) {
        const filter = request.params?.[0] as { address?: string; topics?: (Hex | null)[] };
        if (filter.address?.toLowerCase() === splitter)
          return [
            {
              address: paidLog.address,
              topics: forgedPaidLog(paidLog, b).topics,
              data: paidLog.data,
              blockHash: paid.blockHash,
              blockNumber: numberToHex(paid.blockNumber),
              transactionHash: paid.transactionHash,
              transactionIndex: numberToHex(paid.transactionIndex),
              logIndex: numberToHex(paidLog.logIndex),
              removed: false,
            },
          ];
      }
      return result;
    };
    const first = await recover(b.intent);
    assert.notEqual(first.body.valid, true, JSON.stringify(first.body));
    assert.include(first.body, { found: true, valid: false, code: "PAYMENT_CONFIRMING" });
    assert.deepEqual(await disagreements(), { "0": 1 });
    assert.deepEqual((await recover(b.intent)).body.found, false, "the honest nodes: never paid");
  });

  it("a forged Paid log in the watcher's log read on one node never announces payment.settled for B; A's is announced", async () => {
    const hook = `https://${RECEIVER_HOST}/hooks`;
    const a = await create("12.5", hook);
    const b = await create("12.5", hook);
    const paid = await payIntent(h.chain, buyer(), a.pay);
    await h.chain.mine(2);
    await readFirst(h.nodes[0]!);
    const splitter = h.service.deployment.contracts.Splitter.address.toLowerCase();
    h.nodes[0]!.rewrite = (request, result) => {
      if (request.method !== "eth_getLogs" || !Array.isArray(result)) return result;
      const logs = result as { address: string; topics: Hex[] }[];
      return logs.map((l) => (l.address.toLowerCase() === splitter ? forgedPaidLog(l, b) : l));
    };
    const watcher = service().webhooks.watcher;
    // The forged log is left out and the pass goes on with A's; the node that alone answered it is set aside.
    for (let tick = 0; tick < 3; tick++) await watcher.tick();
    assert.deepEqual(await disagreements(), { "0": 1 });
    const announced = await h.database.query<{ event_type: string; payload: { data: { reference: Hex } } }>(
      "SELECT event_type, payload FROM webhook_deliveries",
    );
    assert.deepEqual(
      announced.map((d) => [d.event_type, d.payload.data.reference]),
      [["payment.settled", a.reference]],
    );
    assert.equal(paid.status, "success");
  });

  it("an x402 settle's success stands on a majority holding its receipt: a receipt forged in another block on the node read first is outvoted, and the success names the real transaction", async () => {
    await readFirst(h.nodes[0]!);
    const created = await api().post("/v1/payments").send({ recipient: merchant().address, amount: "0.25" });
    const requirements: PaymentRequirements = {
      scheme: "exact",
      network: X402_NETWORK,
      amount: created.body.pay.amount_units,
      asset: token(),
      payTo: created.body.pay.deposit_address,
      maxTimeoutSeconds: 60,
      extra: { name: "USDC", version: "2" },
    };
    const client = new x402Client().register(X402_NETWORK, new ExactEvmClientScheme(eoaSigner(buyer(), h.chain.publicClient)));
    const payload = await client.createPaymentPayload({ x402Version: 2, resource: { url: "http://merchant.test/report" }, accepts: [requirements] } as never);
    // Node 0 serves every receipt as mined in a block of its own making.
    const forged = pad("0xf0", { size: 32 });
    h.nodes[0]!.rewrite = (request, result) =>
      request.method === "eth_getTransactionReceipt" && result ? { ...(result as object), blockHash: forged } : result;
    const settled = await api().post("/x402/settle").send({ x402Version: 2, paymentPayload: payload, paymentRequirements: requirements });
    assert.equal(settled.body.success, true, JSON.stringify(settled.body));
    // The transaction named is on the chain, paid, and the payment verifies in its real block, not node 0's.
    const receipt = await h.chain.publicClient.getTransactionReceipt({ hash: settled.body.transaction });
    assert.equal(receipt.status, "success");
    await h.chain.mine(2); // final
    assert.include((await verify(created.body.intent, settled.body.transaction)).body, {
      valid: true,
      tx_hash: settled.body.transaction,
      block_hash: receipt.blockHash,
    });
    assert.isAtLeast((await disagreements())["0"] ?? 0, 1, "the forging node is outvoted and counted");
  });

  it("a real payment verifies valid: true through three nodes, and with one node down", async () => {
    const { a, paid } = await paidAndUnpaid();
    assert.include((await verify(a.intent, paid.transactionHash)).body, { valid: true, tx_hash: paid.transactionHash, block_hash: paid.blockHash });
    assert.include((await recover(a.intent)).body, { found: true, valid: true });
    for (const down of [0, 2]) {
      h.nodes[down]!.down = true;
      assert.include((await verify(a.intent, paid.transactionHash)).body, { valid: true, tx_hash: paid.transactionHash }, `node ${down} down`);
      assert.include((await recover(a.intent)).body, { found: true, valid: true }, `node ${down} down`);
      h.nodes[down]!.down = false;
    }
    assert.deepEqual(await disagreements(), {}, "down is no disagreement");
    // Per node, by position, never by URL: requests to each, and the failures of the ones that were down.
    const metrics = (await supertest(service().opsApp).get("/metrics")).text;
    for (const node of ["0", "1", "2"]) assert.match(metrics, new RegExp(`^rpc_node_requests_total\\{node="${node}"\\} [1-9]`, "m"));
    for (const node of ["0", "2"]) assert.match(metrics, new RegExp(`^rpc_node_errors_total\\{node="${node}"\\} [1-9]`, "m"));
    assert.notMatch(metrics, /^rpc_node_errors_total\{node="1"\}/m, "node 1 never failed");
    for (const node of h.nodes) assert.notInclude(metrics, new URL(node.url).host);
  });

  it("a node lagging 3,000 blocks is not read for the head, not taken for a reorg nor a disagreement, and a payment verifies", async () => {
    await h.chain.mine(3_100);
    const { a, paid } = await paidAndUnpaid();
    h.nodes[0]!.lagBlocks = 3_000;
    const service = await h.another(); // it reads every node's head at start
    const api = supertest.agent(service.app);
    await headsRead(service);
    const verdict = await api.post("/v1/payments/verify").send({ intent: a.intent, tx_hash: paid.transactionHash });
    assert.include(verdict.body, { valid: true, tx_hash: paid.transactionHash });
    h.nodes[0]!.reset();
    h.nodes[0]!.lagBlocks = 3_000;
    await api.post("/v1/payments/verify").send({ intent: a.intent, tx_hash: paid.transactionHash });
    // The lagging node is asked only for the verdict's agreement (its head, where it is behind), never for the head the verdict reads.
    assert.equal(h.nodes[0]!.count("eth_blockNumber"), 1, "one head read: the agreement's");
    const text = (await supertest(service.opsApp).get("/metrics")).text;
    assert.notMatch(text, /^rpc_disagreements_total\{/m);
  });

  it("a node that answers another block hash at the same height is outvoted, set aside and counted; the verdict names the majority's hash", async () => {
    const { a, paid } = await paidAndUnpaid();
    await readFirst(h.nodes[0]!);
    const other = pad("0xbad", { size: 32 });
    const height = numberToHex(paid.blockNumber);
    h.nodes[0]!.rewrite = (request, result) => {
      if (!result || typeof result !== "object") return result;
      const r = result as { number?: Hex; blockNumber?: Hex; hash?: Hex; blockHash?: Hex; logs?: object[] };
      if (request.method === "eth_getBlockByNumber" && r.number === height) return { ...r, hash: other };
      if (request.method === "eth_getTransactionReceipt" && r.blockNumber === height)
        return { ...r, blockHash: other, logs: r.logs?.map((l) => ({ ...l, blockHash: other })) };
      return result;
    };
    // The verdict names the block the majority holds, at once.
    assert.include((await verify(a.intent, paid.transactionHash)).body, { valid: true, block_hash: paid.blockHash });
    assert.deepEqual(await disagreements(), { "0": 1 });
    assert.include((await verify(a.intent, paid.transactionHash)).body, { valid: true, block_hash: paid.blockHash });
  });

  it("a majority down: verdicts answer RPC_BUSY with retry_after and nothing is lost; back: the payment verifies, and a deposit made meanwhile is settled once", async () => {
    const { a, paid } = await paidAndUnpaid();
    const c = await create("7");
    h.nodes[1]!.down = true;
    h.nodes[2]!.down = true;
    const busy = await verify(a.intent, paid.transactionHash);
    assert.equal(busy.status, 503, JSON.stringify(busy.body));
    assert.deepEqual(busy.body, { error: "RPC_BUSY", action: "RETRY", retry_after: 5 });
    assert.equal(busy.headers["retry-after"], "5");
    // A deposit while the majority is down: seen on the one node left, but no settlement is sent on
    // its word (its simulation, gas and nonce), and no watch ended.
    await withdraw(c.pay.deposit_address, 7_000_000n);
    const settler = h.service.depositSettler;
    h.clock.advance(3);
    assert.equal((await settler.tick()).sent, 0, "not sent while no majority answers");
    h.nodes[1]!.down = false;
    h.nodes[2]!.down = false;
    assert.include((await verify(a.intent, paid.transactionHash)).body, { valid: true });
    h.clock.advance(3);
    assert.equal((await settler.tick()).sent, 1, "back: sent");
    await h.chain.mine(3);
    h.clock.advance(3);
    assert.equal((await settler.tick()).settled, 1, "and the watch ends");
    assert.include((await recover(c.intent)).body, { found: true, valid: true });
  });

  it("a charge and a deposit settlement are broadcast to every node and mined once; a node's refusal is no failure when another took it", async () => {
    const s = await subscribe(h, buyer(), { recipient: merchant().address, amount: "10", period: 3600 });
    await approveThroughSession(h, buyer(), s.subscription);
    const relayer = h.chain.accounts[LOCAL_ROLES.relayer]!.address;
    const nonceBefore = await h.chain.publicClient.getTransactionCount({ address: relayer });
    for (const node of h.nodes) node.reset();
    const first = await h.api.post("/v1/charges").send({ subscription: s.subscription });
    assert.include(first.body, { status: "CONFIRMING" }, JSON.stringify(first.body));
    assert.deepEqual(
      h.nodes.map((n) => n.count("eth_sendRawTransaction")),
      [1, 1, 1],
      "the charge to every node",
    );
    await h.chain.mine(2);
    assert.include((await h.api.post("/v1/charges").send({ subscription: s.subscription })).body, { status: "CHARGED", tx_hash: first.body.tx_hash });
    assert.equal(await h.chain.publicClient.getTransactionCount({ address: relayer }), nonceBefore + 1, "one transaction mined");

    const c = await create("7");
    await withdraw(c.pay.deposit_address, 7_000_000n);
    for (const node of h.nodes) node.reset();
    // The first two nodes refuse it (one is behind on the relayer's nonce, one already holds it): the third took it, and that is enough.
    h.nodes[0]!.refuse = (r) => r.method === "eth_sendRawTransaction";
    h.nodes[0]!.refusal = { code: -32000, message: "nonce too low: next nonce 3, tx nonce 2" };
    h.nodes[1]!.refuse = (r) => r.method === "eth_sendRawTransaction";
    h.nodes[1]!.refusal = { code: -32000, message: "already known" };
    h.clock.advance(3);
    assert.equal((await h.service.depositSettler.tick()).sent, 1);
    assert.deepEqual(
      h.nodes.map((n) => n.count("eth_sendRawTransaction")),
      [1, 1, 1],
      "the settlement to every node",
    );
    await h.chain.mine(2);
    assert.include((await recover(c.intent)).body, { found: true, valid: true });
    assert.equal(await h.chain.publicClient.getTransactionCount({ address: relayer }), nonceBefore + 2, "one more transaction mined");
  });
});
