// `npm run bench -- --nodes`: what a majority behind every verdict costs (issue 45). One local chain
// behind three proxies that add 50 ms to every round trip (three remote nodes); one service reads
// through the first alone (RPC_URL), another through all three (RPC_URLS, quorum 2). Each verifies
// the same final payment BENCH_VERIFIES (200) times, one after another: the JSON-RPC requests and
// round trips per verify (summed over the nodes), and verify's p50 and p95, with the three-node
// figures as ratios to the one-node ones.
// `--write` puts the table into docs/benchmarks.md (between the bench-nodes markers).
import { readFileSync, writeFileSync } from "node:fs";
import { LOCAL_ROLES, startLocalChain } from "../dev/localchain/harness.js";
import { createLogger } from "../src/logger.js";
import { createService, type Service } from "../src/service.js";
import { payIntent } from "../test/helpers/payments.js";
import { RpcProxy } from "../test/helpers/rpc-proxy.js";
import { configFor } from "../test/helpers/service.js";

/** The q-quantile of the samples (nearest rank). */
const quantile = (samples: number[], q: number) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
};
const VERIFIES = Number(process.env.BENCH_VERIFIES ?? 200);
const LATENCY_MS = 50;

console.log("starting the local chain…");
const chain = await startLocalChain({ port: 0 });
// Each on its own loopback address: URLs of one host count once in a majority.
const nodes = await Promise.all([0, 1, 2].map((i) => new RpcProxy(chain.rpcUrl!).start(0, `127.0.0.${2 + i}`)));
for (const node of nodes) node.latencyMs = LATENCY_MS;
const quiet = { logger: createLogger("silent") };
const unlimited = { RATE_LIMIT_PER_MINUTE: "1000000000", RPC_TIMEOUT_MS: "30000" };
const one = await createService(configFor(nodes[0]!.url, unlimited), quiet);
const three = await createService(configFor(nodes[0]!.url, { ...unlimited, RPC_URLS: nodes.map((n) => n.url).join(",") }), quiet);

const merchant = chain.accounts[LOCAL_ROLES.firstUser + 1]!;
const buyer = chain.accounts[LOCAL_ROLES.firstUser]!;
const created = await one.payments.create({ recipient: merchant.address, amountUnits: 12_500_000n, caller: "bench" });
const paid = await payIntent(chain, buyer, created.pay as never);
await chain.mine(2);

async function measure(service: Service, label: string) {
  const verify = () => service.payments.verify(created.intent, paid.transactionHash);
  const first = await verify(); // warm: the nodes ranked, the connections open
  if (!first.valid) throw new Error(`${label}: the payment does not verify: ${JSON.stringify(first)}`);
  for (const node of nodes) node.reset();
  for (const node of nodes) node.latencyMs = LATENCY_MS;
  const samples: number[] = [];
  for (let i = 0; i < VERIFIES; i++) {
    const started = performance.now();
    const verdict = await verify();
    samples.push(performance.now() - started);
    if (!verdict.valid) throw new Error(`${label}: verify ${i} answered ${JSON.stringify(verdict)}`);
  }
  // The requests a late node answers after the verdict (a quorum of two decides first) are counted too.
  await new Promise((resolve) => setTimeout(resolve, 4 * LATENCY_MS));
  const calls = nodes.reduce((sum, n) => sum + n.count(), 0) / VERIFIES;
  const roundTrips = nodes.reduce((sum, n) => sum + n.requests, 0) / VERIFIES;
  return { label, calls, roundTrips, p50: quantile(samples, 0.5), p95: quantile(samples, 0.95) };
}

console.log(`${VERIFIES} verifies through one node, then through three…`);
const single = await measure(one, "one node (RPC_URL)");
const several = await measure(three, "three nodes (RPC_URLS, quorum 2)");
await one.close();
await three.close();
for (const node of nodes) await node.close();
await chain.close();

const row = (r: typeof single, base: typeof single) =>
  `| ${r.label} | ${r.calls.toFixed(1)} (${(r.calls / base.calls).toFixed(2)}×) | ${r.roundTrips.toFixed(1)} (${(r.roundTrips / base.roundTrips).toFixed(2)}×) | ${r.p50.toFixed(0)} ms (${(r.p50 / base.p50).toFixed(2)}×) | ${r.p95.toFixed(0)} ms (${(r.p95 / base.p95).toFixed(2)}×) |`;
const table = [
  `| POST /v1/payments/verify of a final payment, ${LATENCY_MS} ms per round trip at every node, ${VERIFIES} in a row | JSON-RPC requests per verify (all nodes) | HTTP round trips per verify (all nodes) | p50 | p95 |`,
  "|---|---|---|---|---|",
  row(single, single),
  row(several, single),
].join("\n");
console.log("");
console.log(table);

if (process.argv.includes("--write")) {
  const doc = new URL("../docs/benchmarks.md", import.meta.url);
  const text = readFileSync(doc, "utf8");
  const [start, end] = ["<!-- bench-nodes:start -->", "<!-- bench-nodes:end -->"];
  if (!text.includes(start)) throw new Error("docs/benchmarks.md has no bench-nodes markers");
  writeFileSync(doc, text.replace(new RegExp(`${start}[\\s\\S]*${end}`), `${start}\n${table}\n${end}`));
  console.log("docs/benchmarks.md updated");
}
process.exit(0);
