import { assert } from "chai";
import supertest from "supertest";
import { erc20Abi, type Address, type Hex } from "viem";
import { LOCAL_ROLES } from "../../dev/localchain/harness.js";
import { startBaseNode, type BaseNode } from "../../dev/localchain/base-node.js";
import { createLogger } from "../../src/logger.js";
import { createService, type Service } from "../../src/service.js";
import { webSocketFeed } from "../../src/chain/ws-feed.js";
import { configFor, useService } from "../helpers/service.js";
import { rpcNotificationsOf, rpcRequestsOf } from "../helpers/metrics.js";
import { strangers } from "../helpers/strangers.js";
import { RpcProxy } from "../helpers/rpc-proxy.js";
import type { PayBlock } from "../helpers/payments.js";
import { until } from "../helpers/until.js";

const minus = (after: Record<string, number>, before: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(after)
      .map(([m, n]) => [m, n - (before[m] ?? 0)])
      .filter(([, n]) => (n as number) > 0),
  ) as Record<string, number>;
const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/**
 * The follower on Base as it is: strangers' USDC transfers in every block, and a node that answers
 * ranges past its head. Blocks are sealed by hand and the clock is the test's, so rounds are counted,
 * never timed.
 */
describe("the chain follower among strangers' USDC transfers", function () {
  this.timeout(240_000);
  const h = useService({}, { chain: { sameSecondBlocks: true } });
  let node: BaseNode | undefined;
  let service: Service | undefined;
  let proxy: RpcProxy | undefined;
  afterEach(async () => {
    await service?.close();
    await proxy?.close();
    await node?.close();
    service = undefined;
    node = undefined;
    proxy = undefined;
  });
  const token = () => h.chain.deployment.token.address;
  const merchant = () => h.chain.accounts[LOCAL_ROLES.firstUser + 1]!;

  async function start(env: Record<string, string> = {}, through?: (url: string) => Promise<string>) {
    node = await startBaseNode(h.chain, { latencyMs: 0, paused: true });
    const rpcUrl = through ? await through(node.url) : node.url;
    service = await createService(configFor(rpcUrl, { RPC_WS_URL: node.wsUrl, ...env }), { now: h.clock.now, logger: createLogger("silent") });
    await service.follower.connect();
    return service;
  }
  /** Seals `blocks` blocks, each after `fill` put its transactions in the pool, and waits for the last one's pushed header. */
  async function seal(blocks: number, fill?: () => Promise<unknown>) {
    let last = 0n;
    for (let i = 0; i < blocks; i++) {
      await fill?.();
      last = await node!.mine();
    }
    await until(() => (service!.follower.pushedHead ?? -1n) >= last, `block ${last}'s header pushed`, { everyMs: 0 });
    return last;
  }
  async function createPayment(s: Service, amount = "3") {
    const res = await supertest(s.app).post("/v1/payments").send({ recipient: merchant().address, amount });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { intent: string; pay: Required<PayBlock> };
  }
  /** A plain USDC transfer from a test account into the pool (the caller seals the block). */
  async function transferTo(from: number, to: Address, units: bigint): Promise<Hex> {
    const account = h.chain.accounts[from]!;
    return h.chain
      .wallet(account)
      .writeContract({ account, chain: h.chain.chain, address: token(), abi: erc20Abi, functionName: "transfer", args: [to, units] });
  }
  const settlementSent = async (s: Service, depositAddress: Address) =>
    (await s.database.query("SELECT 1 FROM deposit_watches WHERE deposit_address = $1 AND tx_hash IS NOT NULL", [depositAddress.toLowerCase()])).length > 0;

  it("20 strangers' transfers a second for a minute, among 1,000 open payment addresses: no log is pushed, no round starts beyond the timer's, within 60 requests", async () => {
    const s = await start();
    await s.database.query(
      `INSERT INTO deposit_watches (deposit_address, recipient, amount_units, reference, watch_until)
       SELECT '0x' || lpad(to_hex(g), 40, '0'), $1, 1000000, '0x' || lpad(to_hex(g), 64, '0'), 4102444800 FROM generate_series(1, 1000) g`,
      [merchant().address],
    );
    const traffic = await strangers(h.chain, LOCAL_ROLES.firstUser + 6);
    await seal(15);
    h.clock.advance(60); // the recipients are looked up again (their 1,000 transfers pushed from now on), the backstop is due
    await s.follower.round();
    await seal(15);
    await s.follower.round();
    const requests = await rpcRequestsOf(s);
    const notifications = await rpcNotificationsOf(s);
    // A minute: a round every FOLLOW_INTERVAL_MS, 15 blocks between, each with 4 strangers' transfers (20 a second).
    const every = s.config.follow.intervalMs;
    for (let ms = 0; ms < 60_000; ms += every) {
      await seal((every / 1000) * 5, () => traffic.send(4));
      h.clock.advance(every / 1000);
      await s.follower.round();
    }
    const used = minus(await rpcRequestsOf(s), requests);
    const pushed = minus(await rpcNotificationsOf(s), notifications);
    assert.isUndefined(pushed.logs, `strangers' transfers pushed: ${JSON.stringify(pushed)}`);
    assert.equal(pushed.newHeads, 300);
    assert.equal(used.eth_getLogs, 20, JSON.stringify(used));
    assert.isAtMost(total(used), 60, JSON.stringify(used));
  });

  it("a payment address's transfer among 500 strangers' transfers in one block is pushed alone, found and settled by the round it starts", async () => {
    const s = await start();
    const traffic = await strangers(h.chain, LOCAL_ROLES.firstUser + 7);
    await seal(2);
    await s.follower.round(); // the cursors; no round runs on a timer from here on
    const { pay } = await createPayment(s);
    await s.follower.recipientsChanged(); // the new payment address's transfers are pushed from here on
    const before = await rpcNotificationsOf(s);
    const hashes = [await traffic.send(250), await traffic.send(250), await transferTo(LOCAL_ROLES.firstUser, pay.deposit_address, BigInt(pay.amount_units))];
    await seal(1);
    const receipts = await Promise.all(hashes.map((hash) => h.chain.publicClient.getTransactionReceipt({ hash })));
    assert.deepEqual(
      receipts.map((r) => [r.status, r.blockNumber]),
      receipts.map(() => ["success", receipts[0]!.blockNumber]),
    );
    assert.equal(
      receipts.slice(0, 2).reduce((n, r) => n + r.logs.length, 0),
      500,
    );
    await until(() => settlementSent(s, pay.deposit_address), "the settlement sent by the round the pushed log started", { everyMs: 20 });
    assert.deepEqual(minus(await rpcNotificationsOf(s), before), { newHeads: 1, logs: 1 });
  });

  for (const lagLogs of ["partial", "refuse"] as const) {
    it(`a node 10 blocks behind the pushed head that answers a range past its head ${lagLogs === "partial" ? "with the logs it has" : "with an error"}: nothing is halved or lost, the transfer is settled`, async () => {
      const s = await start({}, async (url) => {
        proxy = await new RpcProxy(url).start();
        return proxy.url;
      });
      await seal(40);
      await s.follower.round();
      const { pay } = await createPayment(s);
      await s.follower.recipientsChanged();
      proxy!.lagBlocks = 10;
      proxy!.lagLogs = lagLogs;
      await transferTo(LOCAL_ROLES.firstUser, pay.deposit_address, BigInt(pay.amount_units));
      /**
       * A round after `blocks` more blocks. No range is halved for being past the node's head: a
       * range of the token's read again from the same block (after the node refused it, or answered
       * it short) reaches at least the head the node played when it answered the first: the node is
       * read up to where it is, never less. (A round a pushed log started may run beside the test's.)
       */
      const roundAfter = async (blocks: number, seconds: number) => {
        await seal(blocks);
        h.clock.advance(seconds);
        await s.follower.round();
        const reads = proxy!.logReads.filter((read) => read.address.includes(token().toLowerCase()));
        assert.isNotEmpty(reads, "the rounds read logs");
        for (const [i, read] of reads.entries()) {
          const before = reads[i - 1];
          if (!before || before.fromBlock !== read.fromBlock || before.nodeHead === undefined) continue;
          assert.isTrue(
            read.toBlock >= before.nodeHead,
            `[${read.fromBlock}, ${read.toBlock}] after [${before.fromBlock}, ${before.toBlock}] on a node at ${before.nodeHead}: halved`,
          );
        }
        proxy!.logReads.length = 0;
      };
      // The block with the transfer, then rounds 9 and 30 blocks later: the node has it only by the last.
      await roundAfter(1, 1);
      await roundAfter(9, 2);
      assert.isFalse(await settlementSent(s, pay.deposit_address), "not on the node yet");
      await roundAfter(21, 4);
      assert.isTrue(await settlementSent(s, pay.deposit_address), "settled once the node has the block");
    });
  }

  it("the WebSocket dropped (the node restarted): the feed opens it again itself and makes every subscription again, each counted", async () => {
    node = await startBaseNode(h.chain, { latencyMs: 0, paused: true });
    const port = Number(new URL(node.url).port);
    const counted: string[] = [];
    const heads: bigint[] = [];
    const feed = webSocketFeed(node.wsUrl, 1_000, { onRequest: (m) => counted.push(m), onNotification: () => {} });
    const filters = [{ address: [token()], topics: [null] }];
    await feed.subscribe(
      filters,
      (head) => heads.push(head.number),
      () => {},
    );
    try {
      await node.mine();
      await until(() => heads.length >= 1, "the first head pushed");
      await node.close();
      node = await startBaseNode(h.chain, { latencyMs: 0, paused: true, port });
      const before = heads.length;
      // Mined until a pushed head arrives on the socket opened again (each block is an event, not a timer).
      await until(
        async () => {
          if (heads.length > before) return true;
          await node!.mine();
          return false;
        },
        "a head pushed on the socket opened again",
        { everyMs: 50 },
      );
    } finally {
      await feed.close();
    }
    assert.deepEqual(
      counted.filter((m) => m === "eth_subscribe"),
      ["eth_subscribe", "eth_subscribe", "eth_subscribe", "eth_subscribe"],
      "newHeads and logs, then both again",
    );
  });

  it("the WebSocket's keep-alive is a counted request, and the `safe` block read with FINALITY=safe too", async () => {
    node = await startBaseNode(h.chain, { latencyMs: 0, paused: true });
    const counted: string[] = [];
    const feed = webSocketFeed(node.wsUrl, 1_000, { onRequest: (m) => counted.push(m), onNotification: () => {} }, 20);
    await feed.subscribe(
      [],
      () => {},
      () => {},
    );
    try {
      await until(() => counted.filter((m) => m === "net_version").length >= 2, "two keep-alives sent");
    } finally {
      await feed.close();
    }
    assert.deepEqual(counted.slice(0, 2), ["eth_subscribe", "net_version"]);
    await node.close();
    node = undefined;
    const s = await start({ FINALITY: "safe" });
    await seal(3);
    await s.follower.round();
    const before = await rpcRequestsOf(s);
    h.clock.advance(12); // the safe block is read again (every 12 s); the heads sealed next are pushed fresh
    await seal(15);
    await s.follower.round();
    const used = minus(await rpcRequestsOf(s), before);
    assert.deepEqual(used, { eth_getBlockByNumber: 1, eth_getLogs: 1 }, "the safe block's read, and the round's logs; the head is pushed");
  });
});
