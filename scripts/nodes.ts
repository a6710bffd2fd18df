// `npm run nodes -- 2`: plain JSON-RPC proxies in front of a running chain (`npm run chain` or
// `npm start`'s), each a "node" of its own on its own port, so the API can run through several
// nodes of one local chain (RPC_URLS) and one of them can be stopped. Prints the RPC_URLS to use.
// The chain is CHAIN_RPC_URL, else http://127.0.0.1:$CHAIN_PORT (8545); the proxies listen on
// NODES_PORT (CHAIN_PORT + 1) and the ports after it.
import { RpcProxy } from "../test/helpers/rpc-proxy.js";

const count = Number(process.argv[2] ?? 2);
if (!Number.isInteger(count) || count < 1 || count > 9) {
  console.error("usage: npm run nodes -- <how many proxies, 1 to 9>");
  process.exit(1);
}
const chainUrl = process.env.CHAIN_RPC_URL ?? `http://127.0.0.1:${process.env.CHAIN_PORT ?? "8545"}`;
const firstPort = Number(process.env.NODES_PORT ?? Number(new URL(chainUrl).port || 8545) + 1);
const proxies: RpcProxy[] = [];
for (let i = 0; i < count; i++) {
  try {
    proxies.push(await new RpcProxy(chainUrl).start(firstPort + i));
  } catch (error) {
    console.error(`port ${firstPort + i}: ${(error as Error).message} (set NODES_PORT)`);
    for (const p of proxies) await p.close();
    process.exit(1);
  }
}
console.log(`${count} plain node(s) in front of ${chainUrl}:`);
for (const p of proxies) console.log(`  ${p.url}`);
console.log("");
console.log(`RPC_URLS=${[chainUrl, ...proxies.map((p) => p.url)].join(",")}`);
const stop = async () => {
  for (const p of proxies) await p.close();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
