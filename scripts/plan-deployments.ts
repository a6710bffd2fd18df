// Recomputes the CREATE2 address of every contract in deployments/<chain id>.json from its parameters
// and the compiled bytecode. `--check` only compares and exits 1 when a file is stale (CI).
import { readdirSync } from "node:fs";
import { DEPLOYMENTS_DIR, loadDeployment, writeDeployment } from "../src/deployments.js";
import { expectedContracts } from "../dev/deploy/plan.js";

const check = process.argv.includes("--check");
let stale = 0;
for (const file of readdirSync(DEPLOYMENTS_DIR).filter((f) => /^\d+\.json$/.test(f))) {
  const deployment = loadDeployment(Number(file.replace(".json", "")));
  const contracts = expectedContracts(deployment);
  if (JSON.stringify(contracts) === JSON.stringify(deployment.contracts)) {
    console.log(`deployments/${file}: up to date`);
    continue;
  }
  if (check) {
    stale++;
    console.error(`deployments/${file}: stale; expected ${JSON.stringify(contracts)} (run \`npm run generate\`)`);
  } else {
    writeDeployment({ ...deployment, contracts });
    console.log(`deployments/${file}: addresses written ${JSON.stringify(contracts)}`);
  }
}
process.exit(stale ? 1 : 0);
