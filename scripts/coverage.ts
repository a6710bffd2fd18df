// `npm run coverage`: every test once, with coverage of the contracts (Hardhat's --coverage: lines
// and statements; coverage/lcov.info, coverage/html/) and of the service (c8: lines, branches,
// functions; coverage/service/). The instrumented contracts are built into .coverage/, so the real
// build in artifacts/ (what npm start deploys) must come out unchanged: checked here.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

function fingerprint(dir: string): string {
  const hash = createHash("sha256");
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else hash.update(path).update(readFileSync(path));
    }
  };
  if (existsSync(dir)) walk(dir);
  return hash.digest("hex");
}

const before = fingerprint("artifacts/contracts");
const c8 = [
  "--reporter=text-summary",
  "--reporter=lcov",
  "--reporter=json-summary",
  "--reports-dir=coverage/service",
  "--all",
  "--include=src/**",
  "--include=client/src/**",
  "--exclude=src/generated/**",
  "--exclude=src/checkout/**",
  "--exclude=client/src/types.ts", // types only: no code to run
];
const result = spawnSync("c8", [...c8, "hardhat", "test", "--coverage", ...process.argv.slice(2)], { stdio: "inherit" });
if (fingerprint("artifacts/contracts") !== before) {
  console.error("coverage changed artifacts/: the instrumented build must stay in .coverage/");
  process.exit(1);
}
console.log("\nartifacts/ unchanged. Reports: coverage/html/index.html (contracts), coverage/service/lcov-report/index.html (service).");
process.exit(result.status ?? 1);
