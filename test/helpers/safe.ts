import { assert } from "chai";
import { concat, encodeFunctionData, encodePacked, getAddress, parseEventLogs, size, zeroAddress, type Address, type Hex, type TransactionReceipt } from "viem";
import type { HDAccount } from "viem/accounts";
import { compatibilityFallbackHandlerAbi, multiSendCallOnlyAbi, safeAbi, safeProxyFactoryAbi, signMessageLibAbi } from "../../src/generated/contracts.js";
import { packageBytecode } from "../../dev/deploy/artifacts.js";
import type { LocalChain } from "../../dev/localchain/harness.js";
import { send } from "./tx.js";

/** Safe 1.4.1 as its publishers compiled it (`@safe-global/safe-contracts`'s artifacts). */
const ARTIFACTS = "@safe-global/safe-contracts/build/artifacts/contracts";

export interface SafeInfrastructure {
  singleton: Address;
  factory: Address;
  fallbackHandler: Address;
  signMessageLib: Address;
  multiSendCallOnly: Address;
}

async function deploy(chain: LocalChain, from: HDAccount, artifact: string): Promise<Address> {
  const hash = await chain.wallet(from).sendTransaction({ account: from, chain: chain.chain, data: packageBytecode(`${ARTIFACTS}/${artifact}`) });
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  assert.equal(receipt.status, "success", `${artifact} deployment`);
  return getAddress(receipt.contractAddress!);
}

/** Deploys the Safe singleton, SafeProxyFactory, CompatibilityFallbackHandler (ERC-1271), SignMessageLib and MultiSendCallOnly. */
export async function deploySafeInfrastructure(chain: LocalChain, from: HDAccount): Promise<SafeInfrastructure> {
  return {
    singleton: await deploy(chain, from, "Safe.sol/Safe.json"),
    factory: await deploy(chain, from, "proxies/SafeProxyFactory.sol/SafeProxyFactory.json"),
    fallbackHandler: await deploy(chain, from, "handler/CompatibilityFallbackHandler.sol/CompatibilityFallbackHandler.json"),
    signMessageLib: await deploy(chain, from, "libraries/SignMessageLib.sol/SignMessageLib.json"),
    multiSendCallOnly: await deploy(chain, from, "libraries/MultiSendCallOnly.sol/MultiSendCallOnly.json"),
  };
}

/** A Safe (proxy through the factory, as the Safe apps create them) with `owners` and `threshold`, ERC-1271 through the fallback handler. */
export async function createSafe(
  chain: LocalChain,
  infra: SafeInfrastructure,
  from: HDAccount,
  owners: HDAccount[],
  threshold: number,
  saltNonce = 0n,
): Promise<Address> {
  const initializer = encodeFunctionData({
    abi: safeAbi,
    functionName: "setup",
    args: [owners.map((o) => o.address), BigInt(threshold), zeroAddress, "0x", infra.fallbackHandler, zeroAddress, 0n, zeroAddress],
  });
  const receipt = await send(chain, from, {
    address: infra.factory,
    abi: safeProxyFactoryAbi,
    functionName: "createProxyWithNonce",
    args: [infra.singleton, initializer, saltNonce],
  });
  const [created] = parseEventLogs({ abi: safeProxyFactoryAbi, eventName: "ProxyCreation", logs: receipt.logs });
  return getAddress(created!.args.proxy);
}

/** Owners' ECDSA signatures over `hash`, in ascending owner order, concatenated as Safe's checkSignatures wants them. */
async function ownerSignatures(owners: HDAccount[], sign: (owner: HDAccount) => Promise<Hex>): Promise<Hex> {
  const sorted = [...owners].sort((a, b) => (BigInt(a.address) < BigInt(b.address) ? -1 : 1));
  return concat(await Promise.all(sorted.map(sign)));
}

/**
 * An ERC-1271 signature of `dataHash` by the Safe: each owner signs the Safe's EIP-712 `SafeMessage`
 * over it (what the Safe apps ask owners to sign), as CompatibilityFallbackHandler checks it.
 */
export function safeMessageSignature(chain: LocalChain, safe: Address, owners: HDAccount[], dataHash: Hex): Promise<Hex> {
  return ownerSignatures(owners, (owner) =>
    owner.signTypedData({
      domain: { chainId: chain.chain.id, verifyingContract: safe },
      types: { SafeMessage: [{ name: "message", type: "bytes" }] },
      primaryType: "SafeMessage",
      message: { message: dataHash },
    }),
  );
}

/** The hash the handler answers for: what `getMessageHashForSafe` gives (a read-only check for tests). */
export function safeMessageHash(chain: LocalChain, safe: Address, dataHash: Hex): Promise<Hex> {
  return chain.publicClient.readContract({
    address: safe,
    abi: compatibilityFallbackHandlerAbi,
    functionName: "getMessageHashForSafe",
    args: [safe, dataHash],
  });
}

/**
 * Runs a call as the Safe: `execTransaction` signed by `owners` (at least the threshold) over the
 * Safe's transaction hash, sent by the first owner. `delegate` runs it as a DELEGATECALL (SignMessageLib).
 */
export async function execTransaction(
  chain: LocalChain,
  safe: Address,
  owners: HDAccount[],
  call: { to: Address; data: Hex; delegate?: boolean },
): Promise<TransactionReceipt> {
  const operation = call.delegate ? 1 : 0;
  const nonce = await chain.publicClient.readContract({ address: safe, abi: safeAbi, functionName: "nonce" });
  const txHash = await chain.publicClient.readContract({
    address: safe,
    abi: safeAbi,
    functionName: "getTransactionHash",
    args: [call.to, 0n, call.data, operation, 0n, 0n, 0n, zeroAddress, zeroAddress, nonce],
  });
  const signatures = await ownerSignatures(owners, (owner) => owner.sign({ hash: txHash }));
  const receipt = await send(chain, owners[0]!, {
    address: safe,
    abi: safeAbi,
    functionName: "execTransaction",
    args: [call.to, 0n, call.data, operation, 0n, 0n, 0n, zeroAddress, zeroAddress, signatures],
  });
  const events = parseEventLogs({ abi: safeAbi, logs: receipt.logs }).filter((e) => getAddress(e.address) === safe);
  assert.ok(
    events.some((e) => e.eventName === "ExecutionSuccess"),
    "the Safe executed the call",
  );
  return receipt;
}

/** The Safe approves `dataHash` on chain (SignMessageLib through execTransaction): its ERC-1271 signature is then `0x`. */
export function signOnChain(chain: LocalChain, safe: Address, infra: SafeInfrastructure, owners: HDAccount[], dataHash: Hex): Promise<TransactionReceipt> {
  return execTransaction(chain, safe, owners, {
    to: infra.signMessageLib,
    data: encodeFunctionData({ abi: signMessageLibAbi, functionName: "signMessage", args: [dataHash] }),
    delegate: true,
  });
}

/**
 * Several calls as one Safe transaction, as the Safe apps batch them: MultiSendCallOnly run by
 * DELEGATECALL, each call packed as (operation 0, to, value 0, data length, data). Pass the result to
 * `execTransaction`.
 */
export function multiSend(infra: SafeInfrastructure, calls: Array<{ to: Address; data: Hex }>): { to: Address; data: Hex; delegate: true } {
  const transactions = concat(calls.map((c) => encodePacked(["uint8", "address", "uint256", "uint256", "bytes"], [0, c.to, 0n, BigInt(size(c.data)), c.data])));
  return {
    to: infra.multiSendCallOnly,
    data: encodeFunctionData({ abi: multiSendCallOnlyAbi, functionName: "multiSend", args: [transactions] }),
    delegate: true,
  };
}
