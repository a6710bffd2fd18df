/**
 * Where compiled contracts live. `--coverage` (npm run coverage, or `npx hardhat test --coverage`)
 * builds instrumented contracts, whose bytecode, and so whose CREATE2 addresses, differ from the
 * real ones: they go to `.coverage/` so `artifacts/` (what `npm start` deploys) stays the real build.
 * Read by hardhat.config.ts (where to build) and by the code that reads artifacts.
 */
export const COVERAGE_BUILD = process.argv.includes("--coverage");
export const BUILD_PATHS = COVERAGE_BUILD ? { artifacts: ".coverage/artifacts", cache: ".coverage/cache" } : { artifacts: "artifacts", cache: "cache" };
