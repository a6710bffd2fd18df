import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Address, Hex, PublicClient, TestClient } from "viem";

/** Multicall3's address on every OP-stack chain (a preinstall), Base and Base Sepolia included. */
export const MULTICALL3_ADDRESS: Address = "0xcA11bde05977b3631167028862bE2a173976CA11";

/**
 * Multicall3's runtime code, from the creation code viem ships for its deployless multicall (the
 * canonical Multicall3 build): the creation code is a 32-byte constructor followed by the runtime.
 * viem does not export it, so it is read from viem's own module file.
 */
function multicall3Runtime(): Hex {
  const viemEntry = createRequire(import.meta.url).resolve("viem");
  const file = join(dirname(viemEntry), "..", "_esm", "constants", "contracts.js");
  const found = /multicall3Bytecode\s*=\s*'?"?(0x[0-9a-f]+)/.exec(readFileSync(file, "utf8"));
  if (!found) throw new Error(`Multicall3's bytecode was not found in ${file} (viem's layout changed?)`);
  const creation = found[1]!;
  const CONSTRUCTOR = "608060405234801561001057600080fd5b506115b9806100206000396000f3fe";
  if (!creation.startsWith(`0x${CONSTRUCTOR}`)) throw new Error("Multicall3's creation code is not the canonical one");
  return `0x${creation.slice(2 + CONSTRUCTOR.length)}`;
}

/**
 * Places Multicall3 where Base has it, when missing (a fresh local chain; a fork keeps the real one).
 * x402's facilitator (@x402/evm) reads through it to tell a replayed authorization from a short balance.
 */
export async function placeMulticall3(clients: { publicClient: PublicClient; testClient: TestClient }): Promise<void> {
  const code = await clients.publicClient.getCode({ address: MULTICALL3_ADDRESS });
  if (code && code !== "0x") return;
  await clients.testClient.setCode({ address: MULTICALL3_ADDRESS, bytecode: multicall3Runtime() });
}
