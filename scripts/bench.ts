// `npm run bench`: one run, on this machine, of
//   1. POST /v1/payments (with and without notify_url, the latter at 100,000 stored watches) and
//      /v1/payments/resolve throughput and latency, as ratios to a bare Express JSON handler;
//   2. the JSON-RPC calls and round trips verify, refunds/verify and recover make, counted at a
//      proxy in front of the chain, with recover's count at 1,000 and 100,000 blocks of history, and
//      payments/list's pages on a chain 1,000,000 blocks long;
//   3. webhook deliveries per second to a fast HTTPS receiver, against the same POSTs sent straight
//      at the same concurrency;
//   4. recurring charges with 50 ms added to every JSON-RPC round trip (a remote node): first charges
//      of many subscriptions at once, and renewals, against plain token transfers sent back to back
//      through the same proxy; gas per charge;
//   5. a merchant's renewal job over BENCH_RENEWALS subscriptions through the same 50 ms proxy: first
//      charges, then (one period later) the renewals, BENCH_IN_FLIGHT requests outstanding, 429s
//      retried after Retry-After; each subscription checked charged exactly once per period.
//   6. what following the chain costs on a busy Base (scripts/bench-following.ts): `npm run chain` with
//      0, 20 and 100 strangers' USDC transfers a second (LOCAL_TRAFFIC_TPS) and the service in a
//      process of its own, at FINALITY=safe and 1s: JSON-RPC requests and WebSocket notifications a
//      minute, transfer → recipient at p50 and p95, the service's CPU and resident memory.
// `--write` puts the tables into docs/benchmarks.md. BENCH_SECONDS (5) sets each HTTP load's length,
// BENCH_HTTP_ROUNDS (5) the bare/create rounds, BENCH_SUBSCRIPTIONS (200) the subscriptions charged
// at once, BENCH_DELIVERIES (2000) per round of BENCH_DELIVERY_ROUNDS (5), BENCH_RENEWALS (10000),
// BENCH_IN_FLIGHT (512); BENCH_FOLLOW_* the following section's (scripts/bench-following.ts).
// BENCH_ONLY=http,rpc,month,holds,deliveries,charges,renewals,following,chaos runs only those (and --write is refused).
// `--base` runs scripts/bench-base.ts instead: renewals on a node that plays Base (200 ms blocks, 16
// unmined per sender, 50 ms round trips, the L1 data fee).
// `--nodes` runs scripts/bench-nodes.ts: verify through one node and through three (RPC_URLS), 50 ms each.
// `--chaos` runs only scripts/bench-chaos.ts (also the last section of a full run): the chaos property
// test over BENCH_CHAOS_RUNS seeds (60), with the catalogue's coverage and settlement p95 against the honest run's.
// `--denim` runs scripts/bench-denim.ts: npm start's chain (a block every 200 ms), blocks in 5 s idle
// and broadcast → receipt served.
import autocannon from "autocannon";
import express from "express";
import { readFileSync, writeFileSync } from "node:fs";
import { erc20Abi } from "viem";
import { startLocalChain, LOCAL_ROLES } from "../dev/localchain/harness.js";
import { createService } from "../src/service.js";
import { Deliveries } from "../src/webhooks/deliveries.js";
import { postToTarget } from "../src/webhooks/target.js";
import { configFor } from "../test/helpers/service.js";
import { LIST_DEPOSITOR_MAX_READS, LIST_MAX_READS } from "../src/payments/payments-list.js";
import { DEFAULT_PAYMENTS_PER_PAGE } from "../src/wire/index.js";
import { RpcProxy } from "../test/helpers/rpc-proxy.js";
import { payIntent } from "../test/helpers/payments.js";
import { Receiver, RECEIVER_HOST } from "../test/helpers/receiver.js";
import { send } from "../test/helpers/tx.js";
import { buildCheckout } from "../dev/checkout/build.js";
import { benchChaos } from "./bench-chaos.js";
import { benchCharges } from "./bench-charges.js";
import { byMethod, postJson, quiet, ratio, serve, unlimited } from "./bench-common.js";
import { benchFollowing } from "./bench-following.js";
import { benchMonth } from "./bench-list.js";
import { benchHolds } from "./bench-holds.js";

await buildCheckout(); // the service serves the checkout bundle

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 10;
const HTTP_ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS ?? 5);
const WARM_UP_SECONDS = 2;
const SUBSCRIPTIONS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 200);
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 2000);
const DELIVERY_ROUNDS = Number(process.env.BENCH_DELIVERY_ROUNDS ?? 5);
const RENEWALS = Number(process.env.BENCH_RENEWALS ?? 10_000);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 512);
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(",")) : null;
const runs = (name: string) => !ONLY || ONLY.has(name);
if (ONLY && process.argv.includes("--write")) throw new Error("--write needs every scenario (unset BENCH_ONLY)");
const WATCHES = 100_000;

async function load(url: string, body: unknown, seconds = DURATION) {
  const result = await autocannon({
    url,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    connections: CONNECTIONS,
    duration: seconds,
  });
  const non2xx = result.non2xx + result.errors;
  if (non2xx > 0) throw new Error(`${url}: ${non2xx} failed requests`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

if (process.argv.includes("--base")) {
  await import("./bench-base.js");
  process.exit();
}
if (process.argv.includes("--nodes")) {
  await import("./bench-nodes.js");
  process.exit();
}
if (process.argv.includes("--chaos")) {
  console.log((await import("./bench-chaos.js")).benchChaos());
  process.exit();
}
if (process.argv.includes("--denim")) {
  await import("./bench-denim.js");
  process.exit();
}

console.log("starting the local chain…");
const chain = await startLocalChain({ port: 0 });
const proxy = await new RpcProxy(chain.rpcUrl!).start();
const receiver = await new Receiver().start();
const webhookTransport = { resolve: async () => [{ address: "127.0.0.1", family: 4 }], ca: receiver.ca, port: receiver.port };
const service = await createService(configFor(proxy.url, { ...unlimited, WEBHOOKS_ALLOW_LOOPBACK: "true" }), { ...quiet, webhookTransport });
const api = await serve(service.app);
const merchant = chain.accounts[LOCAL_ROLES.firstUser + 1]!;
const buyer = chain.accounts[LOCAL_ROLES.firstUser]!;
const hook = `https://${RECEIVER_HOST}/hooks`;
const sections: string[] = [];

// 1. HTTP throughput against a bare handler: after a warm-up of each, HTTP_ROUNDS rounds of the bare
// handler then POST /v1/payments, one after the other, so each ratio compares runs taken under the
// same load (this machine's figures move by a third from minute to minute); the median round is
// reported. The other endpoints are measured once, against the same median round's bare figure.
if (runs("http")) {
  const bare = express();
  bare.post("/bare", express.json({ limit: 16 * 1024 }), (req, res) => {
    res.json({ ok: true, echo: Object.keys(req.body ?? {}).length });
  });
  const bareServer = await serve(bare);
  const created = (await postJson(api.url, "/v1/payments", { recipient: merchant.address, amount: "12.5" })).body as { intent: string };
  const bareUrl = `${bareServer.url}/bare`;
  const createBody = { recipient: merchant.address, amount: "12.5" };
  console.log(`HTTP load: ${CONNECTIONS} connections, ${DURATION} s each, ${HTTP_ROUNDS} rounds…`);
  await load(bareUrl, createBody, WARM_UP_SECONDS);
  await load(`${api.url}/v1/payments`, createBody, WARM_UP_SECONDS);
  const rounds: Array<{ baseline: Awaited<ReturnType<typeof load>>; create: Awaited<ReturnType<typeof load>> }> = [];
  for (let round = 0; round < HTTP_ROUNDS; round++) {
    const baseline = await load(bareUrl, createBody);
    const create = await load(`${api.url}/v1/payments`, createBody);
    console.log(
      `  round ${round + 1}: bare ${baseline.rps.toFixed(0)} req/s, POST /v1/payments ${create.rps.toFixed(0)} req/s: ${ratio(create.rps, baseline.rps)}×`,
    );
    rounds.push({ baseline, create });
  }
  const { baseline, create } = [...rounds].sort((x, y) => x.create.rps / x.baseline.rps - y.create.rps / y.baseline.rps)[Math.floor(rounds.length / 2)]!;
  // 100,000 watches stored (as after a busy day): the cap check reads two counter rows regardless.
  await service.database.query(
    `INSERT INTO watches (kind, key, notify_url, caller, link_id, data, watch_until)
     SELECT 'payment', 'bench-' || g, $1, '198.51.100.' || (g % 200), NULL, '{}', 4102444800 FROM generate_series(1, ${WATCHES}) g`,
    [hook],
  );
  await service.database.query(
    "INSERT INTO watch_counts (scope, active) SELECT 'caller:' || caller, count(*) FROM watches GROUP BY caller UNION ALL SELECT 'total', count(*) FROM watches ON CONFLICT (scope) DO UPDATE SET active = EXCLUDED.active",
  );
  const withHook = await load(`${api.url}/v1/payments`, { ...createBody, notify_url: hook });
  const resolve = await load(`${api.url}/v1/payments/resolve`, { intent: created.intent });
  bareServer.server.closeAllConnections();
  bareServer.server.close();
  const rows = [
    ["bare Express JSON handler", baseline],
    [`POST /v1/payments (median of ${HTTP_ROUNDS} rounds)`, create],
    [`POST /v1/payments with notify_url, ${WATCHES.toLocaleString("en")} watches stored`, withHook],
    ["POST /v1/payments/resolve", resolve],
  ] as const;
  sections.push(
    [
      "| Endpoint | Throughput vs bare | p50 latency vs bare | p99 latency vs bare |",
      "|---|---:|---:|---:|",
      ...rows.map(
        ([name, r]) =>
          `| ${name} | ${ratio(r.rps, baseline.rps)}× | ${ratio(r.p50 || 0.5, baseline.p50 || 0.5)}× | ${ratio(r.p99 || 0.5, baseline.p99 || 0.5)}× |`,
      ),
      "",
      `POST /v1/payments, each round: ${rounds.map((r) => `${ratio(r.create.rps, r.baseline.rps)}×`).join(", ")}.`,
      `With notify_url vs without: ${ratio(withHook.rps, create.rps)}× the throughput (the watch and its place under the caps in one statement, add_watch; the cap check is two primary-key reads).`,
    ].join("\n"),
  );
  console.log(`(raw, this run only: bare ${baseline.rps.toFixed(0)} req/s; latencies are autocannon's, in ms, with ${CONNECTIONS} connections)`);
}

// 2. JSON-RPC calls and round trips per request.
if (runs("rpc")) {
  console.log("counting JSON-RPC calls…");
  const created = (await postJson(api.url, "/v1/payments", { recipient: merchant.address, amount: "12.5" })).body as {
    intent: string;
    pay: import("../test/helpers/payments.js").PayBlock;
  };
  const receipt = await payIntent(chain, buyer, created.pay);
  const refund = await send(chain, merchant, {
    address: chain.deployment.token.address,
    abi: erc20Abi,
    functionName: "transfer",
    args: [buyer.address, 1_000_000n],
  });
  await chain.mine(2);
  const count = async (path: string, body: unknown, ok: (b: Record<string, unknown>) => boolean) => {
    proxy.reset();
    const answer = await postJson(api.url, path, body);
    if (!ok(answer.body)) throw new Error(`${path}: ${JSON.stringify(answer.body)}`);
    return { calls: proxy.count(), requests: proxy.requests, byMethod: byMethod(proxy.calls) };
  };
  const height = async () => Number(await chain.publicClient.getBlockNumber({ cacheTime: 0 }));
  const valid = (b: Record<string, unknown>) => b.valid === true;
  const rows: Array<[string, number, Awaited<ReturnType<typeof count>>]> = [];
  rows.push(["verify", await height(), await count("/v1/payments/verify", { intent: created.intent, tx_hash: receipt.transactionHash }, valid)]);
  rows.push([
    "refunds/verify",
    await height(),
    await count(
      "/v1/refunds/verify",
      { intent: created.intent, tx_hash: receipt.transactionHash, refund_amount: "1000000", refund_tx_hash: refund.transactionHash },
      (b) => b.status === "REFUNDED",
    ),
  ]);
  await chain.mine(Math.max(0, 1_000 - (await height())));
  rows.push(["recover", await height(), await count("/v1/payments/recover", { intent: created.intent }, valid)]);
  await chain.mine(100_000 - (await height()));
  rows.push(["recover", await height(), await count("/v1/payments/recover", { intent: created.intent }, valid)]);
  if (rows[2]![2].calls !== rows[3]![2].calls) {
    console.error("recover's call count grew with the chain's length");
    process.exitCode = 1;
  }
  // POST /v1/payments/list on a chain 1,000,000 blocks long (mined on a snapshot, reverted after): the
  // first page (the latest blocks, none of them a payment), the page that reaches the payment (down to
  // the deployment's block), and a stranger's. Each page makes a bounded number of reads, each as wide
  // as the node accepts, so its calls do not grow with the chain's length or with how far back the
  // payments are.
  const longChain = await chain.snapshot();
  await chain.mine(1_000_000 - (await height()));
  const listed = (b: Record<string, unknown>) => Array.isArray(b.payments);
  const first = await count("/v1/payments/list", { recipient: merchant.address }, listed);
  rows.push(["payments/list, first page", await height(), first]);
  rows.push([
    "payments/list, the page that reaches the payment",
    await height(),
    await count(
      "/v1/payments/list",
      { recipient: merchant.address, before_block: (receipt.blockNumber + 1n).toString() },
      (b) => listed(b) && (b.payments as unknown[]).length === 1,
    ),
  ]);
  rows.push(["payments/list, a stranger's address", await height(), await count("/v1/payments/list", { recipient: buyer.address }, listed)]);
  // The head, 4 eth_getLogs per range, the page's two ends' blocks, and per payment its block, its
  // transaction, its PaidInExcess share and its depositor's reads.
  const listCeiling = 4 + 4 * LIST_MAX_READS + (3 + LIST_DEPOSITOR_MAX_READS) * DEFAULT_PAYMENTS_PER_PAGE;
  if (rows.slice(-3).some(([, , r]) => r.calls > listCeiling)) {
    console.error(`a payments/list page made more than ${listCeiling} JSON-RPC calls`);
    process.exitCode = 1;
  }
  await chain.revert(longChain);
  sections.push(
    [
      "| Request | Chain height | JSON-RPC calls | Round trips | By method |",
      "|---|---:|---:|---:|---|",
      ...rows.map(([name, blocks, r]) => `| ${name} | ${blocks.toLocaleString("en")} | ${r.calls} | ${r.requests} | ${r.byMethod} |`),
    ].join("\n"),
  );
}

await benchMonth(runs, sections);
await benchHolds(runs, sections);

// 3. Webhook deliveries to a fast receiver: rounds of the queue then the same POSTs straight, one
// after the other, so each ratio compares runs taken under the same load; the median round is reported.
if (runs("deliveries")) {
  const perTarget = service.config.webhooks.targetConcurrency;
  const options = { timeoutMs: 10_000, resolve: webhookTransport.resolve, allowLoopback: true, ca: receiver.ca, port: receiver.port };
  const rounds: Array<{ queued: number; direct: number }> = [];
  // Round 0 warms both paths up (the code compiled, the store's thread busy once) and is not counted.
  for (let round = 0; round <= DELIVERY_ROUNDS; round++) {
    console.log(round === 0 ? `delivering ${DELIVERIES} webhooks (warm-up)…` : `delivering ${DELIVERIES} webhooks (round ${round} of ${DELIVERY_ROUNDS})…`);
    const deliveries = new Deliveries(service.database);
    const now = Date.now();
    for (let i = 0; i < DELIVERIES; i++)
      await deliveries.enqueue({ eventId: `evt_bench_${round}_${i}`, eventType: "payment.settled", notifyUrl: hook, payload: { id: i }, dueAt: now });
    receiver.received.length = 0;
    const started = performance.now();
    service.webhooks.delivery.start(1000, (error) => console.error(error));
    while (
      receiver.received.length < DELIVERIES ||
      (await service.database.query("SELECT 1 FROM webhook_deliveries WHERE status = 'pending' LIMIT 1")).length > 0
    ) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const queued = DELIVERIES / ((performance.now() - started) / 1000);
    service.webhooks.delivery.stop();
    // Baseline: the same POSTs sent straight to the receiver, as many at once as one target gets.
    let next = 0;
    const baseStart = performance.now();
    await Promise.all(
      Array.from({ length: perTarget }, async () => {
        while (next < DELIVERIES) {
          const i = next++;
          await postToTarget(hook, { "svc-event-id": `evt_direct_${i}` }, JSON.stringify({ id: i }), options);
        }
      }),
    );
    const direct = DELIVERIES / ((performance.now() - baseStart) / 1000);
    console.log(`  queue ${queued.toFixed(0)}/s, straight ${direct.toFixed(0)}/s: ${ratio(queued, direct)}×`);
    if (round > 0) rounds.push({ queued, direct });
  }
  const median = [...rounds].sort((x, y) => x.queued / x.direct - y.queued / y.direct)[Math.floor(rounds.length / 2)]!;
  sections.push(
    [
      `| Deliveries to one fast receiver (median of ${DELIVERY_ROUNDS} rounds) | Per second | vs straight POSTs |`,
      "|---|---:|---:|",
      `| straight POSTs, ${perTarget} at once (baseline) | ${median.direct.toFixed(0)} | 1.00× |`,
      `| the delivery queue (lease, sign, POST, record), ${perTarget} per target | ${median.queued.toFixed(0)} | ${ratio(median.queued, median.direct)}× |`,
    ].join("\n"),
  );
}

await benchCharges({ chain, merchant, runs, sections, subscriptions: SUBSCRIPTIONS, renewals: RENEWALS, inFlight: IN_FLIGHT });

// 6. What following the chain costs on a busy Base: scripts/bench-following.ts (its own chain and service processes).
if (runs("following")) sections.push(await benchFollowing());
// 7. Three nodes, one chaotic (scripts/bench-chaos.ts): printed, not written into docs/benchmarks.md.
const chaos = runs("chaos") ? benchChaos() : null;

const tables = sections.join("\n\n");
console.log("");
console.log(tables);
console.log("");
if (chaos) console.log(`${chaos}\n`);
if (process.argv.includes("--write")) {
  const doc = new URL("../docs/benchmarks.md", import.meta.url);
  writeFileSync(doc, readFileSync(doc, "utf8").replace(/<!-- bench:begin -->[\s\S]*<!-- bench:end -->/, `<!-- bench:begin -->\n${tables}\n<!-- bench:end -->`));
  console.log("docs/benchmarks.md updated");
}
api.server.closeAllConnections();
api.server.close();
await service.close();
await receiver.stop();
await proxy.close();
await chain.close();
