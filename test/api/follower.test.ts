import { assert } from "chai";
import supertest from "supertest";
import type { Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { startBaseNode, type BaseNode } from "../../dev/localchain/base-node.js";
import { createLogger } from "../../src/logger.js";
import { createService, type Service } from "../../src/service.js";
import { RECEIVER_SPLIT_EVERY_MS } from "../../src/x402/receiver-splitter.js";
import { configFor, useService } from "../helpers/service.js";
import { exchangeWithdrawals, payIntent, type PayBlock } from "../helpers/payments.js";
import { Receiver } from "../helpers/receiver.js";
import { rpcRequestsOf } from "../helpers/metrics.js";

const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
const minus = (after: Record<string, number>, before: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(after)
      .map(([m, n]) => [m, n - (before[m] ?? 0)])
      .filter(([, n]) => (n as number) > 0),
  );
/** Base's blocks since Denim: five a second. */
const BLOCKS_PER_SECOND = 5;

/**
 * What the service's background work asks of the node in one minute at idle, by counted rounds on a
 * fake clock (never a timed test): the follower's rounds (one per FOLLOW_INTERVAL_MS, each after the
 * blocks Base makes meanwhile, `between`), the stuck-transaction sweeps and the receivers' rounds.
 * The requests counted on /metrics.
 */
async function aMinuteAtIdle(service: Service, clock: { advance(seconds: number): void }, between: (blocks: number) => Promise<void>) {
  const before = await rpcRequestsOf(service);
  const every = service.config.follow.intervalMs;
  for (let ms = 0; ms < 60_000; ms += every) {
    await between((every / 1000) * BLOCKS_PER_SECOND);
    clock.advance(every / 1000);
    await service.follower.round();
  }
  for (let ms = 0; ms < 60_000; ms += service.config.relayer.sweepIntervalMs)
    await service.stuckCharges.replaceStuck(service.config.relayer.replaceAfterSeconds);
  for (let ms = 0; ms < 60_000; ms += RECEIVER_SPLIT_EVERY_MS) await service.receiverSplitter.tick();
  return minus(await rpcRequestsOf(service), before);
}

describe("the chain follower: one per instance, by time", function () {
  this.timeout(300_000);
  const receiver = new Receiver();
  const h = useService(
    { WEBHOOKS_ALLOW_LOOPBACK: "true" },
    { deps: () => ({ webhookTransport: { resolve: async () => [{ address: "127.0.0.1", family: 4 }], ca: receiver.ca, port: receiver.port } }) },
  );
  before(() => receiver.start());
  after(() => receiver.stop());
  const buyer = () => h.chain.accounts[LOCAL_ROLES.firstUser]!;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;
  const withdraw = exchangeWithdrawals(
    () => h.chain,
    buyer,
    () => h.service.deployment.token.address,
    1300,
  );
  const HOOK = `https://hooks.merchant.example.com/follow`;

  async function create(s: Service, extra: Record<string, unknown> = {}) {
    const res = await supertest(s.app)
      .post("/v1/payments")
      .send({ recipient: merchant().address, amount: "4", notify_url: HOOK, ...extra });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { intent: string; reference: Hex; pay: Required<PayBlock> };
  }
  const announced = async (type: string) =>
    (
      await h.database.query<{ payload: { data: { reference?: Hex; block_hash?: Hex } } }>("SELECT payload FROM webhook_deliveries WHERE event_type = $1", [
        type,
      ])
    ).map((r) => (typeof r.payload === "string" ? JSON.parse(r.payload) : r.payload) as { data: { reference?: Hex; block_hash?: Hex } });

  it("at idle, a minute of rounds on the polling path (no WebSocket) stays within 60 JSON-RPC requests, new blocks and all", async () => {
    const s = h.service;
    assert.isNull(s.config.follow.wsUrl);
    // The first rounds read the overlap behind the head, and the watcher's first stretch.
    await s.follower.round();
    await h.chain.mine(15);
    await s.follower.round();
    const used = await aMinuteAtIdle(s, h.clock, (blocks) => h.chain.mine(blocks));
    assert.isAtMost(total(used), 60, JSON.stringify(used));
    // One head and one eth_getLogs per round, whatever the number of blocks in between.
    assert.deepEqual(used, { eth_getBlockByNumber: 20, eth_getLogs: 20 });
  });

  it("with 1,000 open payment addresses, the same minute adds only the backstop's 20 balance reads", async () => {
    const s = h.service;
    await h.database.query(
      `INSERT INTO deposit_watches (deposit_address, recipient, amount_units, reference, watch_until)
       SELECT '0x' || lpad(to_hex(g), 40, '0'), $1, 1000000, '0x' || lpad(to_hex(g), 64, '0'), 4102444800 FROM generate_series(1, 1000) g`,
      [merchant().address],
    );
    // The first rounds read the overlap behind the head, and the watcher's first stretch (as at idle above).
    await s.follower.round();
    await h.chain.mine(15);
    await s.follower.round();
    h.clock.advance(60); // the backstop's first sweep is due a minute after start
    const used = await aMinuteAtIdle(s, h.clock, (blocks) => h.chain.mine(blocks));
    assert.isAtMost(total(used), 60 + 20, JSON.stringify(used));
    // The idle minute's head and eth_getLogs per round, and the backstop's 20 balanceOf calls: nothing per open address.
    assert.deepEqual(used, { eth_getBlockByNumber: 20, eth_getLogs: 20, eth_call: 20 });
  });

  it("stopped for 3,000 blocks, then started: every payment made meanwhile is settled in the first round, and announced once final", async () => {
    const first = h.service;
    await first.follower.round(); // cursors recorded, then the instance stops
    const deposits = [await create(first), await create(first), await create(first)];
    const direct = await create(first);
    for (const d of deposits) {
      await withdraw(d.pay.deposit_address, BigInt(d.pay.amount_units));
      await h.chain.mine(1000);
    }
    await payIntent(h.chain, buyer(), direct.pay);
    // An hour on Base is 18,000 blocks; 3,000 here, far more than any one read of the settler's.
    const next = await h.another();
    await next.follower.round();
    const sent = await h.database.query<{ deposit_address: string }>("SELECT deposit_address FROM deposit_watches WHERE tx_hash IS NOT NULL");
    assert.lengthOf(sent, deposits.length, "every deposit's settlement sent in the first round");
    // The settlements past the finality depth; on the polling path the final pass stops at a head the
    // follower read (its hash costs no request), so the next round announces them.
    for (let i = 0; i < 2; i++) {
      await h.chain.mine(15);
      await next.follower.round();
    }
    const settled = (await announced("payment.settled")).map((e) => e.data.reference);
    for (const [i, d] of [...deposits, direct].entries())
      assert.equal(settled.filter((reference) => reference === d.reference).length, 1, `payment.settled once for payment ${i}`);
    for (const d of deposits) {
      const verdict = await supertest(next.app).post("/v1/payments/recover").send({ intent: d.intent });
      assert.equal(verdict.body.valid, true, JSON.stringify(verdict.body));
    }
  });

  it("FINALITY in seconds: capabilities state the depth, and verify says valid: true only there (1 s: five 200 ms blocks)", async () => {
    const s = await h.another({ FINALITY: "1s" });
    const api = supertest(s.app);
    const caps = await api.get("/v1/capabilities");
    assert.deepEqual(caps.body.finality, { rule: "confirmations", confirmations: 5, seconds: 1 });
    const p = await create(s);
    const receipt = await payIntent(h.chain, buyer(), p.pay);
    const verify = () => api.post("/v1/payments/verify").send({ intent: p.intent, tx_hash: receipt.transactionHash });
    await h.chain.mine(4);
    assert.deepEqual((await verify()).body, { valid: false, code: "PAYMENT_CONFIRMING" }, "four blocks on: not final");
    await h.chain.mine(1);
    assert.equal((await verify()).body.valid, true, "five blocks on: final");
  });

  it("a reorg of the latest three blocks: the inclusion hint is retracted, and the payment followed where it lands", async () => {
    const s = await h.another({ FINALITY: "6" });
    const p = await create(s, { notify_included: true });
    await s.follower.round();
    const snapshot = (await h.chain.provider.request({ method: "evm_snapshot", params: [] })) as Hex;
    await payIntent(h.chain, buyer(), p.pay); // approve, pay: two blocks
    await h.chain.mine(1);
    await s.follower.round();
    const [included] = await announced("payment.included");
    assert.ok(included, "payment.included at inclusion");
    // The latest three blocks leave the chain; the payment is made again in others.
    await h.chain.provider.request({ method: "evm_revert", params: [snapshot] });
    await h.chain.mine(1);
    await payIntent(h.chain, buyer(), p.pay);
    await s.follower.round();
    const reorged = await announced("payment.reorged");
    assert.lengthOf(reorged, 1);
    assert.equal(reorged[0]!.data.block_hash, included!.data.block_hash);
    const hints = await announced("payment.included");
    assert.lengthOf(hints, 2, "a new hint for the block it landed in");
    assert.notEqual(hints[1]!.data.block_hash, included!.data.block_hash);
    await h.chain.mine(6);
    await s.follower.round();
    assert.lengthOf(await announced("payment.settled"), 1);
  });
});

describe("the chain follower on a node's WebSocket", function () {
  this.timeout(120_000);
  const h = useService({}, { chain: { sameSecondBlocks: true } });
  let node: BaseNode | undefined;
  let service: Service | undefined;
  afterEach(async () => {
    await service?.close();
    await node?.close();
    service = undefined;
    node = undefined;
  });

  it("at idle, a minute of rounds stays within 60 JSON-RPC requests: heads are pushed (newHeads), one eth_getLogs a round", async () => {
    node = await startBaseNode(h.chain, { latencyMs: 0, paused: true });
    service = await createService(configFor(node.url, { RPC_WS_URL: node.wsUrl }), { now: h.clock.now, logger: createLogger("silent") });
    await service.follower.connect();
    const seal = async (blocks: number) => {
      let last = 0n;
      for (let i = 0; i < blocks; i++) last = await node!.mine();
      // The pushed header of the last block reaches the service (a message on the socket, not a timer;
      // the deadline only stops a socket that never delivers).
      const deadline = Date.now() + 30_000;
      while ((service!.follower.pushedHead ?? -1n) < last) {
        assert.isBelow(Date.now(), deadline, `block ${last}'s header pushed`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    for (let i = 0; i < 2; i++) {
      await seal(15);
      await service.follower.round();
    }
    const used = await aMinuteAtIdle(service, h.clock, seal);
    assert.isAtMost(total(used), 60, JSON.stringify(used));
    assert.deepEqual(used, { eth_getLogs: 20 }, "no head read: newHeads pushes it");
  });
  it("a log of ours pushed on the WebSocket starts a round at once: a plain transfer to a payment address is settled with no timer round", async () => {
    node = await startBaseNode(h.chain, { latencyMs: 0, paused: true });
    service = await createService(configFor(node.url, { RPC_WS_URL: node.wsUrl }), { now: h.clock.now, logger: createLogger("silent") });
    await service.follower.connect();
    await node.mine();
    await service.follower.round(); // the cursors; no round runs on a timer from here on
    const created = await supertest(service.app)
      .post("/v1/payments")
      .send({ recipient: h.chain.accounts[LOCAL_ROLES.firstUser + 1]!.address, amount: "3" });
    const pay = created.body.pay as Required<PayBlock>;
    const withdraw = exchangeWithdrawals(
      () => h.chain,
      () => h.chain.accounts[LOCAL_ROLES.firstUser]!,
      () => pay.token,
      1500,
    );
    // The transfer reaches the node's pool; each block is sealed by hand (the deadline only stops a stalled transfer).
    let done = false;
    const transfer = withdraw(pay.deposit_address, BigInt(pay.amount_units)).finally(() => (done = true));
    const mining = Date.now() + 30_000;
    while (!done) {
      assert.isBelow(Date.now(), mining, "the transfer mined");
      await node.mine();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await transfer;
    await node.mine();
    // No timer and no block from here: only the round the pushed Transfer log starts can send the settlement.
    const sent = async () =>
      (
        await service!.database.query<{ tx_hash: Hex }>("SELECT tx_hash FROM deposit_watches WHERE deposit_address = $1 AND tx_hash IS NOT NULL", [
          pay.deposit_address.toLowerCase(),
        ])
      )[0]?.tx_hash;
    const deadline = Date.now() + 30_000;
    let settlement = await sent();
    while (!settlement) {
      assert.isBelow(Date.now(), deadline, "the settlement sent by the round the pushed log started");
      await new Promise((resolve) => setTimeout(resolve, 20));
      settlement = await sent();
    }
    // Settled: the settlement mined (recorded before it is broadcast, so blocks until its receipt), then
    // final, the payment verifies valid with it.
    const receipt = () => h.chain.publicClient.getTransactionReceipt({ hash: settlement }).catch(() => null);
    const settling = Date.now() + 30_000;
    while (!(await receipt())) {
      assert.isBelow(Date.now(), settling, "the settlement mined");
      await node.mine();
    }
    await node.mine(2);
    const verdict = await supertest(service.app).post("/v1/payments/verify").send({ intent: created.body.intent, tx_hash: settlement });
    assert.include(verdict.body, { valid: true, tx_hash: settlement }, JSON.stringify(verdict.body));
  });
});
