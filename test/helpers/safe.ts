import { createRequire } from "node:module";
import { concat, encodeFunctionData, getAddress, pad, parseEventLogs, toHex, zeroAddress, type Abi, type Address, type Hex } from "viem";
import type { HDAccount } from "viem/accounts";
import { compatibilityFallbackHandlerAbi, safeAbi, safeProxyFactoryAbi } from "../../src/generated/contracts.js";
import { packageBytecode } from "../../src/deploy/artifacts.js";
import type { LocalChain } from "../../src/localchain/harness.js";
import { send } from "./tx.js";

/**
 * Safe 1.4.1 as users hold it, from @safe-global/safe-contracts' compiled artifacts: the singleton,
 * the proxy factory, the CompatibilityFallbackHandler (which answers ERC-1271 for the Safe) and
 * SignMessageLib (a Safe "signs" a message on chain through it; then an empty signature validates).
 */
const SAFE = "@safe-global/safe-contracts/build/artifacts/contracts";
const signMessageLibAbi = (createRequire(import.meta.url)(`${SAFE}/libraries/SignMessageLib.sol/SignMessageLib.json`) as { abi: Abi }).abi;

export interface SafeInfra {
  singleton: Address;
  factory: Address;
  handler: Address;
  signMessageLib: Address;
}

async function deploy(chain: LocalChain, from: HDAccount, abi: Abi, artifact: string): Promise<Address> {
  const hash = await chain.wallet(from).deployContract({ abi, bytecode: packageBytecode(`${SAFE}/${artifact}`), account: from, chain: chain.chain } as never);
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  if (!receipt.contractAddress) throw new Error(`${artifact} deployment failed`);
  return getAddress(receipt.contractAddress);
}

/** Deploys the Safe 1.4.1 contracts a Safe account needs. */
export async function deploySafeInfra(chain: LocalChain, from: HDAccount): Promise<SafeInfra> {
  return {
    singleton: await deploy(chain, from, safeAbi, "Safe.sol/Safe.json"),
    factory: await deploy(chain, from, safeProxyFactoryAbi, "proxies/SafeProxyFactory.sol/SafeProxyFactory.json"),
    handler: await deploy(chain, from, compatibilityFallbackHandlerAbi, "handler/CompatibilityFallbackHandler.sol/CompatibilityFallbackHandler.json"),
    signMessageLib: await deploy(chain, from, signMessageLibAbi, "libraries/SignMessageLib.sol/SignMessageLib.json"),
  };
}

let saltNonce = 0n;

/** A Safe proxy with these owners and threshold, answering ERC-1271 through the CompatibilityFallbackHandler. */
export async function createSafe(chain: LocalChain, from: HDAccount, infra: SafeInfra, owners: Address[], threshold = 1): Promise<Address> {
  const initializer = encodeFunctionData({ abi: safeAbi, functionName: "setup", args: [owners, BigInt(threshold), zeroAddress, "0x", infra.handler, zeroAddress, 0n, zeroAddress] });
  const receipt = await send(chain, from, { address: infra.factory, abi: safeProxyFactoryAbi, functionName: "createProxyWithNonce", args: [infra.singleton, initializer, ++saltNonce] });
  const [created] = parseEventLogs({ abi: safeProxyFactoryAbi, eventName: "ProxyCreation", logs: receipt.logs });
  return getAddress(created!.args.proxy);
}

/**
 * Executes a call (operation 0) or delegatecall (1) from a Safe whose threshold is 1, sent by an owner
 * (Safe's "pre-validated" signature: r = the owner, s = 0, v = 1).
 */
export async function safeExec(chain: LocalChain, owner: HDAccount, safe: Address, to: Address, data: Hex, operation: 0 | 1 = 0) {
  const signature = concat([pad(owner.address), pad("0x00"), "0x01"]);
  return send(chain, owner, { address: safe, abi: safeAbi, functionName: "execTransaction", args: [to, 0n, data, operation, 0n, 0n, 0n, zeroAddress, zeroAddress, signature] });
}

/** One owner's signature of `hash` as the Safe's ERC-1271 check wants it: an EIP-712 `SafeMessage`. */
export function signForSafe(chain: LocalChain, owner: HDAccount, safe: Address, hash: Hex): Promise<Hex> {
  return owner.signTypedData({
    domain: { chainId: chain.chain.id, verifyingContract: safe },
    types: { SafeMessage: [{ name: "message", type: "bytes" }] },
    primaryType: "SafeMessage",
    message: { message: hash },
  });
}

/** The owners' signatures of `hash`, concatenated in ascending owner order (as Safe requires). */
export async function signForSafeBy(chain: LocalChain, owners: HDAccount[], safe: Address, hash: Hex): Promise<Hex> {
  const sorted = [...owners].sort((a, b) => (BigInt(a.address) < BigInt(b.address) ? -1 : 1));
  return concat(await Promise.all(sorted.map((o) => signForSafe(chain, o, safe, hash))));
}

/** Has a 1-of-n Safe approve `hash` on chain (SignMessageLib by delegatecall): an empty signature then validates. */
export async function approveHashOnChain(chain: LocalChain, owner: HDAccount, infra: SafeInfra, safe: Address, hash: Hex) {
  return safeExec(chain, owner, safe, infra.signMessageLib, encodeFunctionData({ abi: signMessageLibAbi, functionName: "signMessage", args: [hash] }), 1);
}

/** Replaces the Safe's only owner (`oldOwner`, the first in Safe's list) with `newOwner`. */
export async function swapOnlyOwner(chain: LocalChain, oldOwner: HDAccount, safe: Address, newOwner: Address) {
  const sentinel = toHex(1n, { size: 20 });
  return safeExec(chain, oldOwner, safe, safe, encodeFunctionData({ abi: safeAbi, functionName: "swapOwner", args: [sentinel, oldOwner.address, newOwner] }));
}
