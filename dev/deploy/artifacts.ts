import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Hex } from "viem";
import { BUILD_PATHS } from "./build-mode.js";

const ARTIFACTS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../..", BUILD_PATHS.artifacts, "contracts");

/**
 * The creation bytecode of a compiled contract, read from Hardhat's artifacts
 * (`artifacts/contracts/<source>/<Name>.json`). ABIs come from the generated bindings instead.
 */
export function creationBytecode(contractName: string, sourcePath = `${contractName}.sol`): Hex {
  const path = resolve(ARTIFACTS_DIR, sourcePath, `${contractName}.json`);
  let artifact: { bytecode?: string };
  try {
    artifact = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    throw new Error(`no artifact for ${contractName} at ${path}: run \`npm run build\` (or \`npm start\`, which builds) first`);
  }
  if (!artifact.bytecode || artifact.bytecode === "0x") throw new Error(`${path} has no bytecode`);
  return artifact.bytecode as Hex;
}

/**
 * The creation bytecode of a compiled artifact shipped in a registry package (Circle's FiatToken,
 * Safe), with its libraries linked: `libraries` maps a library name to its deployed address.
 * Those contracts are used as their publishers compiled them; their source is never copied here.
 */
export function packageBytecode(artifactPath: string, libraries: Record<string, Hex> = {}): Hex {
  const require = createRequire(import.meta.url);
  const artifact = JSON.parse(readFileSync(require.resolve(artifactPath), "utf8")) as {
    bytecode: string;
    linkReferences?: Record<string, Record<string, { start: number; length: number }[]>>;
  };
  let code = artifact.bytecode.slice(2);
  for (const [, libs] of Object.entries(artifact.linkReferences ?? {})) {
    for (const [name, refs] of Object.entries(libs)) {
      const address = libraries[name];
      if (!address) throw new Error(`${artifactPath} needs library ${name} linked`);
      for (const { start, length } of refs) {
        code = code.slice(0, start * 2) + address.slice(2).toLowerCase() + code.slice((start + length) * 2);
      }
    }
  }
  return `0x${code}` as Hex;
}

/**
 * The runtime bytecode of a compiled contract, for placing with `hardhat_setCode` (which carries
 * code and nothing else). Refuses a contract with immutables: the artifact's runtime code holds
 * zeros where a constructor would have written them.
 */
export function runtimeBytecode(contractName: string, sourcePath = `${contractName}.sol`): Hex {
  const path = resolve(ARTIFACTS_DIR, sourcePath, `${contractName}.json`);
  let artifact: { deployedBytecode?: string; immutableReferences?: Record<string, unknown> };
  try {
    artifact = JSON.parse(readFileSync(path, "utf8"));
  } catch {
    throw new Error(`no artifact for ${contractName} at ${path}: run \`npm run build\` (or \`npm start\`, which builds) first`);
  }
  if (!artifact.deployedBytecode || artifact.deployedBytecode === "0x") throw new Error(`${path} has no runtime bytecode`);
  if (Object.keys(artifact.immutableReferences ?? {}).length > 0) {
    throw new Error(`${contractName} has immutables, which its runtime code cannot carry to another address: it cannot be placed with setCode`);
  }
  return artifact.deployedBytecode as Hex;
}
