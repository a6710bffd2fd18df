// Starts only the local chain that plays Base Sepolia, served over JSON-RPC (`npm run chain`): Base
// after Denim, a block every 200 ms with or without transactions (BLOCK_INTERVAL_MS; 0 = a block per
// transaction), WebSocket subscriptions on the same port. CHAIN_WITHOUT_CONTRACTS=1 leaves our
// contracts out (USDC and the CREATE2 deployer only: Base Sepolia before our deployment), which is
// how `npm run test:fork` uses it as a fork's upstream.
import { startBaseNode } from "../dev/localchain/base-node.js";
import { DENIM_BLOCK_MS } from "../dev/localchain/denim.js";
import { startLocalChain } from "../dev/localchain/harness.js";
import { startTraffic } from "../dev/localchain/traffic.js";

const port = Number(process.env.CHAIN_PORT ?? 8545);
const host = process.env.CHAIN_HOST ?? "127.0.0.1";
const withoutContracts = process.env.CHAIN_WITHOUT_CONTRACTS === "1";
const rawInterval = process.env.BLOCK_INTERVAL_MS;
if (rawInterval !== undefined && rawInterval !== "" && !/^[0-9]+$/.test(rawInterval)) {
  console.error(`BLOCK_INTERVAL_MS=${rawInterval} is not a number of milliseconds (a whole number, 0 or more)`);
  process.exit(1);
}
const blockMs = rawInterval ? Number(rawInterval) : DENIM_BLOCK_MS;
const rawTraffic = process.env.LOCAL_TRAFFIC_TPS;
if (rawTraffic !== undefined && rawTraffic !== "" && !/^[0-9]+$/.test(rawTraffic)) {
  console.error(`LOCAL_TRAFFIC_TPS=${rawTraffic} is not a number of transfers a second (a whole number, 0 or more)`);
  process.exit(1);
}
const trafficTps = rawTraffic ? Number(rawTraffic) : 0;

let url: string;
const local = blockMs === 0 ? await startLocalChain({ port, host, withoutContracts }) : await startLocalChain({ withoutContracts, sameSecondBlocks: true });
if (blockMs === 0) {
  url = local.rpcUrl!;
} else {
  const node = await startBaseNode(local, { latencyMs: 0, host, port, blockMs });
  url = node.url;
}
console.log(`local chain ${local.chain.id} at ${url}`);
console.log(
  blockMs === 0 ? "a block per transaction (BLOCK_INTERVAL_MS=0)" : `a block every ${blockMs} ms (Base after Denim), WebSocket ${url.replace(/^http/, "ws")}`,
);
if (!withoutContracts) {
  console.log(`Splitter ${local.deployment.contracts.Splitter.address}`);
  console.log(`RecurringCharges ${local.deployment.contracts.RecurringCharges.address}`);
}
console.log(`USDC ${local.deployment.token.address}`);
if (local.authCapture) {
  const { escrow, eip3009Collector, standIn } = local.authCapture;
  console.log(
    `AuthCaptureEscrow ${escrow}, ERC3009PaymentCollector ${eip3009Collector} (${standIn ? "the project's stand-in, not Commerce Payments' code" : "the canonical contracts"})`,
  );
}
if (trafficTps > 0) {
  await startTraffic(local, trafficTps);
  console.log(`strangers' traffic: ${trafficTps} USDC transfers a second among fresh addresses (LOCAL_TRAFFIC_TPS)`);
}
