import { readFileSync } from "node:fs";
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
