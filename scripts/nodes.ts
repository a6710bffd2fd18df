// `npm run nodes -- 2`: plain JSON-RPC proxies in front of a running chain (`npm run chain` or
// `npm start`'s), each a "node" of its own on its own port, so the API can run through several
// nodes of one local chain (RPC_URLS) and one of them can be stopped. Prints the RPC_URLS to use.
// Each listens on its own loopback address (127.0.0.2, 127.0.0.3, …): the service counts the URLs
// of one host once in a majority.
// The chain is CHAIN_RPC_URL, else http://127.0.0.1:$CHAIN_PORT (8545); the proxies listen on
// NODES_PORT (CHAIN_PORT + 1) and the ports after it.
// `npm run nodes -- 2 --liar` makes the first proxy a node that lies: it claims a head 5,000 blocks
// ahead (LIAR_AHEAD_BLOCKS), answers every eth_getLogs with no logs, and forges every receipt's
// status and logs (a reverted transaction reported successful, its logs dropped).
// `npm run nodes -- 3 --chaos SEED` makes the first proxy a chaos node: per request, a lie picked by
// SEED from test/helpers/chaos.ts's catalogue (no SEED: a random one); the seed is printed, to replay.
import { numberToHex, type Hex } from "viem";
import { CHAOS_LIES, makeChaotic, type Chaos } from "../test/helpers/chaos.js";
import { RpcProxy } from "../test/helpers/rpc-proxy.js";

const args = process.argv.slice(2);
const liar = args.includes("--liar");
const chaosAt = args.indexOf("--chaos");
const chaosSeed = chaosAt < 0 ? null : /^\d+$/.test(args[chaosAt + 1] ?? "") ? Number(args[chaosAt + 1]) : Math.floor(Math.random() * 2 ** 31);
const count = Number(args.find((a, i) => !a.startsWith("--") && i !== chaosAt + 1) ?? 2);
if (!Number.isInteger(count) || count < 1 || count > 9 || (liar && chaosSeed !== null)) {
  console.error("usage: npm run nodes -- <how many proxies, 1 to 9> [--liar | --chaos [SEED]]");
  process.exit(1);
}
const ahead = BigInt(process.env.LIAR_AHEAD_BLOCKS ?? 5_000);
const chainUrl = process.env.CHAIN_RPC_URL ?? `http://127.0.0.1:${process.env.CHAIN_PORT ?? "8545"}`;
const firstPort = Number(process.env.NODES_PORT ?? Number(new URL(chainUrl).port || 8545) + 1);
const proxies: RpcProxy[] = [];
for (let i = 0; i < count; i++) {
  try {
    // Each node on its own loopback address: URLs of one host count once in a majority.
    proxies.push(await new RpcProxy(chainUrl).start(firstPort + i, `127.0.0.${2 + i}`));
  } catch (error) {
    console.error(`port ${firstPort + i}: ${(error as Error).message} (set NODES_PORT)`);
    for (const p of proxies) await p.close();
    process.exit(1);
  }
}
if (liar) {
  proxies[0]!.rewrite = (request, result) => {
    if (request.method === "eth_blockNumber" && typeof result === "string") return numberToHex(BigInt(result) + ahead);
    if (request.method === "eth_getBlockByNumber" && request.params?.[0] === "latest" && result)
      return { ...(result as object), number: numberToHex(BigInt((result as { number: Hex }).number) + ahead) };
    if (request.method === "eth_getLogs") return [];
    if (request.method === "eth_getTransactionReceipt" && result) return { ...(result as object), status: "0x1", logs: [] };
    return result;
  };
}
let chaos: Chaos | null = null;
if (chaosSeed !== null) chaos = makeChaotic(proxies[0]!, chaosSeed);
const lies = liar ? `  (lies: a head ${ahead} blocks ahead, no logs, forged receipts)` : chaos ? `  (chaos, seed ${chaos.seed}: ${CHAOS_LIES.join(", ")})` : "";
console.log(`${count} node(s) in front of ${chainUrl}:`);
for (const [i, p] of proxies.entries()) console.log(`  ${p.url}${i === 0 ? lies : ""}`);
if (chaos) console.log(`chaos seed ${chaos.seed} (replay: npm run nodes -- ${count} --chaos ${chaos.seed})`);
console.log("");
const urls = liar || chaos ? [...proxies.map((p) => p.url), chainUrl] : [chainUrl, ...proxies.map((p) => p.url)];
console.log(`RPC_URLS=${urls.join(",")}`);
const stop = async () => {
  if (chaos) console.log(`chaos seed ${chaos.seed} told: ${JSON.stringify(Object.fromEntries(chaos.told))}`);
  for (const p of proxies) await p.close();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
