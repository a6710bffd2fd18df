import { defineConfig } from "@wagmi/cli";
import { hardhat } from "@wagmi/cli/plugins";

// Typed ABIs generated from the compiled contracts (Hardhat 3 artifacts). Addresses are not here:
// they live in deployments/<name>.json and are loaded at run time.
export default defineConfig({
  out: "src/generated/contracts.ts",
  contracts: [],
  plugins: [
    hardhat({
      project: ".",
      commands: { build: "npx hardhat compile --quiet" },
    }),
  ],
});
