import { defineConfig } from "hardhat/config";
import hardhatViem from "@nomicfoundation/hardhat-viem";
import hardhatMocha from "@nomicfoundation/hardhat-mocha";
import hardhatNetworkHelpers from "@nomicfoundation/hardhat-network-helpers";
import hardhatVerify from "@nomicfoundation/hardhat-verify";
import { configVariable } from "hardhat/config";
import { createRequire } from "node:module";
import { BUILD_PATHS } from "./dev/deploy/build-mode.js";
import { buildCheckout } from "./dev/checkout/build.js";

const require = createRequire(import.meta.url);
// Offline solc: the WASM build shipped inside the npm `solc` package.
// Hardhat 3 skips the download for any solc compiler config that has `path`.
const soljsonPath = require.resolve("solc/soljson.js");
const solcVersion: string = require("solc/package.json").version; // "0.8.37"

// Base Sepolia-like in-process chain (OP-stack simulation).
// Hardfork "granite" (Cancun EVM, what the contracts target): with Holocene or later, EDR 0.20 panics
// ("Extra data should have at least 1 byte for version") when it builds a block after `hardhat_mine`
// of more than two blocks, which the finality and recovery tests and the benchmark need.
const baseSepoliaSim = {
  type: "edr-simulated",
  chainType: "op",
  chainId: 84532,
  hardfork: "granite",
  // Like a real node: a reverting transaction is mined and its hash returned, not thrown.
  throwOnTransactionFailures: false,
  // Base-like gas prices (0.01 gwei), so gas quotes in USDC are realistic.
  initialBaseFeePerGas: 10_000_000n,
} as const;

export default defineConfig({
  plugins: [hardhatViem, hardhatMocha, hardhatNetworkHelpers, hardhatVerify],
  // Forking (FORK_URL): EDR needs a hardfork for blocks up to the fork block. Every block runs the
  // "granite" rules, as the simulated chain does (see above): right for a local upstream, and for a
  // fork of Base Sepolia what our contracts and USDC need (Cancun EVM).
  chainDescriptors: {
    84532: { name: "Base Sepolia", chainType: "op", hardforkHistory: { granite: { blockNumber: 0 } } },
  },
  // Instrumented builds (--coverage) go to .coverage/, never over the real artifacts.
  paths: BUILD_PATHS,
  solidity: {
    version: solcVersion,
    path: soljsonPath,
    // Standard interfaces the service calls, built so the typed bindings include their ABIs.
    npmFilesToBuild: ["@openzeppelin/contracts/interfaces/IERC1271.sol"],
    settings: { evmVersion: "cancun", viaIR: true, optimizer: { enabled: true, runs: 10_000 } }, // solc 0.8.37 defaults to "osaka"
  },
  networks: {
    default: baseSepoliaSim, // used by `hardhat test` / network.create()
    node: baseSepoliaSim, // used by `hardhat node`
    l1: { type: "edr-simulated", chainType: "l1", chainId: 31337 },
    // Real chains, for `hardhat verify` after `npm run deploy` (read only when used).
    baseSepolia: { type: "http", chainType: "op", chainId: 84532, url: configVariable("RPC_URL") },
    base: { type: "http", chainType: "op", chainId: 8453, url: configVariable("RPC_URL") },
  },
  // Block-explorer verification (Basescan through the Etherscan v2 API): ETHERSCAN_API_KEY in the environment.
  verify: { etherscan: { apiKey: configVariable("ETHERSCAN_API_KEY") } },
  // The service serves the checkout bundle that `npm run build` writes: the suite builds it once first.
  test: {
    mocha: {
      timeout: 60_000,
      rootHooks: {
        async beforeAll() {
          await buildCheckout();
        },
      },
    },
  },
  // Coverage of our contracts only: the test-only tokens and accounts are instruments, not subjects,
  // and so are the stand-ins of Commerce Payments' escrow (someone else's contracts, deployed as
  // published): instrumented, their calls would pass the relayer's gas ceilings and be refused.
  coverage: { skipFiles: ["contracts/test/**", "contracts/escrow/**"] },
});
