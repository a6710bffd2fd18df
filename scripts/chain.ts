// Starts only the local chain that plays Base Sepolia, served over JSON-RPC (`npm run chain`).
import { startLocalChain } from "../src/localchain/harness.js";

const port = Number(process.env.CHAIN_PORT ?? 8545);
const local = await startLocalChain({ port, host: process.env.CHAIN_HOST ?? "127.0.0.1" });
console.log(`local chain ${local.chain.id} at ${local.rpcUrl}`);
console.log(`Splitter ${local.deployment.contracts.Splitter.address}`);
console.log(`RecurringCharges ${local.deployment.contracts.RecurringCharges.address}`);
console.log(`USDC ${local.deployment.token.address}`);
