// `npm run bench`: one run, on this machine, of
//   1. POST /v1/payments and /v1/payments/resolve throughput and latency, as ratios to a bare Express
//      JSON handler measured in the same run;
//   2. the JSON-RPC calls each verify and recover makes, counted at a proxy in front of the chain,
//      with recover's count at 1,000 and 100,000 blocks of history.
// `--write` puts the tables into docs/benchmarks.md.
import autocannon from "autocannon";
import express from "express";
import { readFileSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startLocalChain, LOCAL_ROLES } from "../src/localchain/harness.js";
import { createService } from "../src/service.js";
import { createLogger } from "../src/logger.js";
import { configFor } from "../test/helpers/service.js";
import { RpcProxy } from "../test/helpers/rpc-proxy.js";
import { payIntent } from "../test/helpers/payments.js";

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 10;

function serve(app: express.Express): Promise<{ url: string; server: Server }> {
  return new Promise((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }));
  });
}

async function load(url: string, body: unknown) {
  const result = await autocannon({ url, method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), connections: CONNECTIONS, duration: DURATION });
  const non2xx = result.non2xx + result.errors;
  if (non2xx > 0) throw new Error(`${url}: ${non2xx} failed requests`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

console.log("starting the local chain…");
const chain = await startLocalChain({ port: 0 });
const proxy = await new RpcProxy(chain.rpcUrl!).start();
const service = await createService(configFor(proxy.url, { RATE_LIMIT_PER_MINUTE: "1000000000", RECOVER_LIMIT_PER_MINUTE: "1000000", RECOVER_INTENT_LIMIT_PER_MINUTE: "1000000" }), { logger: createLogger("silent") });
const api = await serve(service.app);

const bare = express();
bare.post("/bare", express.json({ limit: 16 * 1024 }), (req, res) => {
  res.json({ ok: true, echo: Object.keys(req.body ?? {}).length });
});
const bareServer = await serve(bare);

const merchant = chain.accounts[LOCAL_ROLES.firstUser + 1]!.address;
const buyer = chain.accounts[LOCAL_ROLES.firstUser]!;
const created = await (await fetch(`${api.url}/v1/payments`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ recipient: merchant, amount: "12.5" }) })).json() as { intent: string; pay: import("../test/helpers/payments.js").PayBlock };

console.log(`HTTP load: ${CONNECTIONS} connections, ${DURATION} s each…`);
const baseline = await load(`${bareServer.url}/bare`, { recipient: merchant, amount: "12.5" });
const create = await load(`${api.url}/v1/payments`, { recipient: merchant, amount: "12.5" });
const resolve = await load(`${api.url}/v1/payments/resolve`, { intent: created.intent });

console.log("counting JSON-RPC calls…");
const receipt = await payIntent(chain, buyer, created.pay);
await chain.mine(2);
const post = (path: string, body: unknown) => fetch(`${api.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.json());
async function count(path: string, body: unknown) {
  proxy.reset();
  const answer = (await post(path, body)) as { valid?: boolean };
  if (answer.valid !== true) throw new Error(`${path} did not verify: ${JSON.stringify(answer)}`);
  return { calls: proxy.count(), byMethod: Object.fromEntries(proxy.calls) };
}
const height = async () => Number(await chain.publicClient.getBlockNumber({ cacheTime: 0 }));
const verifyCount = { blocks: await height(), ...(await count("/v1/payments/verify", { intent: created.intent, tx_hash: receipt.transactionHash })) };
await chain.mine(Math.max(0, 1_000 - (await height())));
const recoverAt1k = { blocks: await height(), ...(await count("/v1/payments/recover", { intent: created.intent })) };
await chain.mine(100_000 - (await height()));
const recoverAt100k = { blocks: await height(), ...(await count("/v1/payments/recover", { intent: created.intent })) };

const ratio = (a: number, b: number) => (a / b).toFixed(2);
const throughputRows = [
  ["bare Express JSON handler", baseline],
  ["POST /v1/payments", create],
  ["POST /v1/payments/resolve", resolve],
] as const;
const tables = [
  "| Endpoint | Throughput vs bare | p50 latency vs bare | p99 latency vs bare |",
  "|---|---:|---:|---:|",
  ...throughputRows.map(([name, r]) => `| ${name} | ${ratio(r.rps, baseline.rps)}× | ${ratio(r.p50 || 0.5, baseline.p50 || 0.5)}× | ${ratio(r.p99 || 0.5, baseline.p99 || 0.5)}× |`),
  "",
  "| Request | Chain height | JSON-RPC calls | By method |",
  "|---|---:|---:|---|",
  `| verify | ${verifyCount.blocks.toLocaleString("en")} | ${verifyCount.calls} | ${Object.entries(verifyCount.byMethod).map(([m, n]) => `${m} ${n}`).join(", ")} |`,
  `| recover | ${recoverAt1k.blocks.toLocaleString("en")} | ${recoverAt1k.calls} | ${Object.entries(recoverAt1k.byMethod).map(([m, n]) => `${m} ${n}`).join(", ")} |`,
  `| recover | ${recoverAt100k.blocks.toLocaleString("en")} | ${recoverAt100k.calls} | ${Object.entries(recoverAt100k.byMethod).map(([m, n]) => `${m} ${n}`).join(", ")} |`,
].join("\n");
console.log("");
console.log(tables);
console.log("");
console.log(`(raw, this run only: bare ${baseline.rps.toFixed(0)} req/s; latencies are autocannon's, in ms, with ${CONNECTIONS} connections)`);

if (recoverAt1k.calls !== recoverAt100k.calls) {
  console.error("recover's call count grew with the chain's length");
  process.exitCode = 1;
}
if (process.argv.includes("--write")) {
  const doc = new URL("../docs/benchmarks.md", import.meta.url);
  writeFileSync(doc, readFileSync(doc, "utf8").replace(/<!-- bench:begin -->[\s\S]*<!-- bench:end -->/, `<!-- bench:begin -->\n${tables}\n<!-- bench:end -->`));
  console.log("docs/benchmarks.md updated");
}
api.server.closeAllConnections();
bareServer.server.closeAllConnections();
api.server.close();
bareServer.server.close();
await proxy.close();
await chain.close();
