// Deploys the contracts of one environment: `npm run deploy -- --chain 84532 [--dry-run] [--production]`.
// Reads RPC_URL and DEPLOYER_PRIVATE_KEY from the environment (never from a file in the repo).
import { privateKeyToAccount } from "viem/accounts";
import { deployEnvironment } from "../dev/deploy/deploy-environment.js";

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
}

const chainId = Number(flag("--chain") ?? process.env.DEPLOY_CHAIN_ID);
const rpcUrl = process.env.RPC_URL;
const key = process.env.DEPLOYER_PRIVATE_KEY;
if (![84532, 8453].includes(chainId)) {
  console.error("usage: npm run deploy -- --chain <84532|8453> [--dry-run] [--production]");
  process.exit(2);
}
if (!rpcUrl || !key || !/^0x[0-9a-fA-F]{64}$/.test(key)) {
  console.error("set RPC_URL and DEPLOYER_PRIVATE_KEY (0x + 64 hex digits) in the environment");
  process.exit(2);
}
try {
  await deployEnvironment({
    chainId,
    rpcUrl,
    deployer: privateKeyToAccount(key as `0x${string}`),
    allowProduction: process.argv.includes("--production"),
    dryRun: process.argv.includes("--dry-run"),
  });
} catch (error) {
  console.error(`deploy failed: ${(error as Error).message}`);
  process.exit(1);
}
