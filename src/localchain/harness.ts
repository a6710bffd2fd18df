import { network } from "hardhat";
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  custom,
  defineChain,
  encodeFunctionData,
  http,
  parseEther,
  toHex,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type TestClient,
  type WalletClient,
} from "viem";
import { mnemonicToAccount, type HDAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { recurringChargesAbi, testUsdcAbi } from "../generated/contracts.js";
import { loadLiveDeployment, type LiveDeployment } from "../deployments.js";
import { creationBytecode } from "../deploy/artifacts.js";
import { COVERAGE_BUILD } from "../deploy/build-mode.js";
import { deployCreate2 } from "../deploy/create2.js";
import { planContracts } from "../deploy/plan.js";
import { serveJsonRpc, type RequestProvider } from "./rpc-server.js";

/** Hardhat's default test mnemonic: every local account is derived from it. Never use it on a real chain. */
export const LOCAL_MNEMONIC = "test test test test test test test test test test test junk";
/** How many derived accounts hold ETH and test USDC on the local chain. */
export const LOCAL_ACCOUNT_COUNT = 20;
/** 1,000,000 test USDC (6 decimals) per local account. */
export const LOCAL_USDC_UNITS = 1_000_000n * 10n ** 6n;
/** The chain id the local chain plays: Base Sepolia. */
export const LOCAL_CHAIN_ID = 84532;

/**
 * Runtime code of the canonical CREATE2 deployer (the "deterministic deployment proxy" at
 * `create2Deployer`), placed on the local chain when missing, as it exists on every real chain.
 */
const CREATE2_DEPLOYER_RUNTIME: Hex =
  "0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3";

/** The local accounts by role (index in the mnemonic). */
export const LOCAL_ROLES = {
  /** Sends the CREATE2 deployments and mints test USDC. */
  deployer: 0,
  /** The relayer the local service charges subscriptions with. */
  relayer: 1,
  /** The first account free for buyers, payers and merchants. */
  firstUser: 2,
} as const;

export function localAccount(index: number): HDAccount {
  return mnemonicToAccount(LOCAL_MNEMONIC, { addressIndex: index });
}

export interface LocalChain {
  /** Base Sepolia's chain definition, pointed at this chain. */
  chain: Chain;
  deployment: LiveDeployment;
  /** The in-process provider (fast; for tests and the harness itself). */
  provider: RequestProvider;
  /** The chain as a JSON-RPC HTTP endpoint, when served. */
  rpcUrl: string | null;
  publicClient: PublicClient;
  testClient: TestClient<"hardhat">;
  /** A wallet client that signs locally with `account` (one of the derived accounts). */
  wallet(account: HDAccount): WalletClient;
  accounts: HDAccount[];
  mine(blocks?: number): Promise<void>;
  /** Moves the next block's timestamp forward by `seconds` and mines it. */
  advanceTime(seconds: number | bigint): Promise<void>;
  snapshot(): Promise<Hex>;
  /** Reverts to a snapshot: every block after it disappears (a reorg, as the service sees it). */
  revert(id: Hex): Promise<void>;
  close(): Promise<void>;
}

export interface LocalChainOptions {
  /** Serve the chain over HTTP on this port (0 = any free port); omit to not serve it. */
  port?: number;
  host?: string;
  /** Leave our contracts undeployed (the CREATE2 deployer and test USDC are still placed): deploy tests. */
  withoutContracts?: boolean;
}

/**
 * Starts the local chain that plays Base Sepolia: chain id 84532, the canonical CREATE2 deployer,
 * the test USDC at the real Base Sepolia USDC address, our contracts at the addresses
 * `deployments/84532.json` names (same CREATE2 parameters as the real chain), the local relayer
 * allowed, and every derived account funded with ETH and 1,000,000 test USDC.
 */
export async function startLocalChain(options: LocalChainOptions = {}): Promise<LocalChain> {
  const connection = await network.create();
  const provider = connection.provider as unknown as RequestProvider;
  const deployment = loadLiveDeployment(LOCAL_CHAIN_ID);
  const transport = custom(provider, { retryCount: 0 });
  const chain = baseSepolia;
  const publicClient = createPublicClient({ chain, transport, cacheTime: 0 }) as PublicClient;
  const testClient = createTestClient({ chain, mode: "hardhat", transport });
  const wallet = (account: HDAccount) => createWalletClient({ account, chain, transport });
  const accounts = Array.from({ length: LOCAL_ACCOUNT_COUNT }, (_, i) => localAccount(i));
  const deployer = accounts[LOCAL_ROLES.deployer]!;

  const chainId = await publicClient.getChainId();
  if (chainId !== LOCAL_CHAIN_ID) throw new Error(`hardhat network has chain id ${chainId}, expected ${LOCAL_CHAIN_ID}`);
  for (const account of accounts) await testClient.setBalance({ address: account.address, value: parseEther("10000") });

  // The CREATE2 deployer, as on every real chain.
  const deployerCode = await publicClient.getCode({ address: deployment.create2Deployer });
  if (!deployerCode || deployerCode === "0x") {
    await testClient.setCode({ address: deployment.create2Deployer, bytecode: CREATE2_DEPLOYER_RUNTIME });
  }

  // Test USDC at the real Base Sepolia USDC address: deploy anywhere, copy the runtime code over.
  // Its name, symbol and minter are code, so no storage needs initialising.
  const usdcHash = await wallet(deployer).deployContract({
    abi: testUsdcAbi,
    bytecode: creationBytecode("TestUSDC", "test/TestUSDC.sol"),
    args: [deployer.address],
  });
  const usdcReceipt = await publicClient.waitForTransactionReceipt({ hash: usdcHash });
  const usdcRuntime = await publicClient.getCode({ address: usdcReceipt.contractAddress! });
  await testClient.setCode({ address: deployment.token.address, bytecode: usdcRuntime! });

  // Our contracts through CREATE2, with the parameters of deployments/84532.json.
  if (!options.withoutContracts) await deployOurContracts();
  async function deployOurContracts() {
  for (const planned of planContracts(deployment, deployment.parameters)) {
    const result = await deployCreate2({ public: publicClient, wallet: wallet(deployer) }, deployer, chain, deployment.create2Deployer, deployment.salt as Hex, planned.initCode);
    const recorded = deployment.contracts[planned.name].address;
    if (result.address !== recorded && COVERAGE_BUILD) {
      // Instrumented bytecode lands at another CREATE2 address: place its code and the storage its
      // constructor wrote at the recorded address, so everything else (service, tests) is unchanged.
      // deployments/ is never written.
      await testClient.setCode({ address: recorded, bytecode: (await publicClient.getCode({ address: result.address }))! });
      for (let slot = 0n; slot < 16n; slot++) {
        const value = await publicClient.getStorageAt({ address: result.address, slot: toHex(slot, { size: 32 }) });
        if (value && BigInt(value) !== 0n) await testClient.setStorageAt({ address: recorded, index: toHex(slot, { size: 32 }), value });
      }
    } else if (result.address !== recorded) {
      throw new Error(
        `${planned.name} deployed at ${result.address} but deployments/84532.json says ${recorded}: the compiled contracts differ from the committed ones. ` +
          "If you changed a contract, run `npm run build && npm run generate` and commit deployments/ and src/generated/; otherwise rebuild (`npm run build`).",
      );
    }
  }

  // The local relayer: the owner (not a local key) allows it, impersonated.
  const relayer = accounts[LOCAL_ROLES.relayer]!;
  const owner = deployment.parameters.owner;
  await testClient.impersonateAccount({ address: owner });
  await testClient.setBalance({ address: owner, value: parseEther("1") });
  const allowHash = await createWalletClient({ chain, transport }).sendTransaction({
    account: owner,
    to: deployment.contracts.RecurringCharges.address,
    data: encodeFunctionData({ abi: recurringChargesAbi, functionName: "setRelayer", args: [relayer.address, true] }),
  });
  await publicClient.waitForTransactionReceipt({ hash: allowHash });
  await testClient.stopImpersonatingAccount({ address: owner });
  }

  for (const account of accounts) {
    const hash = await wallet(deployer).writeContract({
      address: deployment.token.address,
      abi: testUsdcAbi,
      functionName: "mint",
      args: [account.address, LOCAL_USDC_UNITS],
    });
    await publicClient.waitForTransactionReceipt({ hash });
  }

  const served = options.port === undefined ? null : await serveJsonRpc(provider, options.host, options.port);
  const localChain: LocalChain = {
    chain: served ? defineChain({ ...baseSepolia, rpcUrls: { default: { http: [served.url] } } }) : chain,
    deployment,
    provider,
    rpcUrl: served?.url ?? null,
    publicClient,
    testClient,
    wallet,
    accounts,
    mine: (blocks = 1) => testClient.mine({ blocks }),
    advanceTime: async (seconds) => {
      await testClient.increaseTime({ seconds: Number(seconds) });
      await testClient.mine({ blocks: 1 });
    },
    snapshot: () => testClient.snapshot(),
    revert: (id) => testClient.revert({ id }),
    close: async () => {
      await served?.close();
      await connection.close();
    },
  };
  return localChain;
}

/** An HTTP transport to a served local chain (what the service uses). */
export function httpTransport(url: string) {
  return http(url, { retryCount: 0 });
}

export type { Address };
