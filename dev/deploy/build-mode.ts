/**
 * Where compiled contracts live. `--coverage` (npm run coverage, or `npx hardhat test --coverage`)
 * builds instrumented contracts, whose bytecode, and so whose CREATE2 addresses, differ from the
 * real ones: they go to `.coverage/` so `artifacts/` (what `npm start` deploys) stays the real build.
 * Read by hardhat.config.ts (where to build) and by the code that reads artifacts. Hardhat exports its
 * global options to the environment (HARDHAT_COVERAGE=true under --coverage), so a process a test
 * starts (`npm start` in start.test.ts) builds and reads the same instrumented contracts instead of
 * compiling them again over artifacts/.
 */
export const COVERAGE_BUILD = process.argv.includes("--coverage") || process.env.HARDHAT_COVERAGE === "true";
export const BUILD_PATHS = COVERAGE_BUILD ? { artifacts: ".coverage/artifacts", cache: ".coverage/cache" } : { artifacts: "artifacts", cache: "cache" };
