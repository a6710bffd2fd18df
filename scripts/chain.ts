// Starts only the local chain that plays Base Sepolia, served over JSON-RPC (`npm run chain`).
// CHAIN_WITHOUT_CONTRACTS=1 leaves our contracts out (USDC and the CREATE2 deployer only: Base
// Sepolia before our deployment), which is how `npm run test:fork` uses it as a fork's upstream.
import { startLocalChain } from "../dev/localchain/harness.js";

const port = Number(process.env.CHAIN_PORT ?? 8545);
const local = await startLocalChain({ port, host: process.env.CHAIN_HOST ?? "127.0.0.1", withoutContracts: process.env.CHAIN_WITHOUT_CONTRACTS === "1" });
console.log(`local chain ${local.chain.id} at ${local.rpcUrl}`);
if (process.env.CHAIN_WITHOUT_CONTRACTS !== "1") {
  console.log(`Splitter ${local.deployment.contracts.Splitter.address}`);
  console.log(`RecurringCharges ${local.deployment.contracts.RecurringCharges.address}`);
}
console.log(`USDC ${local.deployment.token.address}`);
