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
import { fiatTokenAbi, recurringChargesAbi } from "../../src/generated/contracts.js";
import { loadLiveDeployment, type LiveDeployment } from "../../src/deployments.js";
import { COVERAGE_BUILD } from "../deploy/build-mode.js";
import { deployCreate2 } from "../deploy/create2.js";
import { planContracts } from "../deploy/plan.js";
import { placeAuthCaptureStandIns, type AuthCaptureContracts } from "./auth-capture.js";
import { callsWithoutL1Fee, L1_FEE_LEVELS, setL1Fees, type L1FeeParameters } from "./l1-fees.js";
import { placeMulticall3 } from "./multicall3.js";
import { serveJsonRpc, type RequestProvider } from "./rpc-server.js";
import { adoptFiatToken, placeFiatToken, writeFiatTokenBalances, type FiatTokenRoles } from "./usdc.js";

/** Hardhat's default test mnemonic: every local account is derived from it. Never use it on a real chain. */
export const LOCAL_MNEMONIC = "test test test test test test test test test test test junk";
/** How many derived accounts hold ETH and USDC on the local chain. */
export const LOCAL_ACCOUNT_COUNT = 20;
/** 1,000,000 USDC (6 decimals) per local account. */
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
  /** Sends the CREATE2 deployments and mints USDC (USDC's local minter). */
  deployer: 0,
  /** The relayer the local service charges subscriptions with. */
  relayer: 1,
  /** The first account free for buyers, payers and merchants. */
  firstUser: 2,
} as const;

export function localAccount(index: number): HDAccount {
  return mnemonicToAccount(LOCAL_MNEMONIC, { addressIndex: index });
}

/**
 * The accounts that hold USDC's roles on the local chain (indexes past the funded users, so no test
 * payer is accidentally an administrator); the local deployer (#0) is the minter that funds accounts.
 */
export const LOCAL_USDC_ROLE_INDEXES = { proxyAdmin: 100, owner: 101, masterMinter: 102, pauser: 103, blacklister: 104 } as const;

export function localUsdcRoles(): FiatTokenRoles {
  const i = LOCAL_USDC_ROLE_INDEXES;
  return {
    proxyAdmin: localAccount(i.proxyAdmin),
    owner: localAccount(i.owner),
    masterMinter: localAccount(i.masterMinter),
    pauser: localAccount(i.pauser),
    blacklister: localAccount(i.blacklister),
    minter: localAccount(LOCAL_ROLES.deployer),
  };
}

export interface LocalChain {
  /** Base Sepolia's chain definition, pointed at this chain. */
  chain: Chain;
  deployment: LiveDeployment;
  /** The in-process provider (fast; for tests and the harness itself); answered by the node in front of the chain while one runs (`routeThrough`). */
  provider: RequestProvider;
  /** The chain itself, never routed: what a node in front of it (dev/localchain/base-node.ts) builds on. */
  direct: RequestProvider;
  /** Answers `provider` (and the clients here) with `node` from now on (null: the chain itself again). */
  routeThrough(node: RequestProvider | null): void;
  /** The chain as a JSON-RPC HTTP endpoint, when served. */
  rpcUrl: string | null;
  publicClient: PublicClient;
  testClient: TestClient<"hardhat">;
  /** A wallet client that signs locally with `account` (one of the derived accounts). */
  wallet(account: HDAccount): WalletClient;
  accounts: HDAccount[];
  /** USDC's roles (owner, master minter, pauser, blacklister, proxy admin, minter): known local keys. */
  usdcRoles: FiatTokenRoles;
  /**
   * The holds' escrow and EIP-3009 collector at Commerce Payments' canonical addresses: on a fresh
   * chain the project's **stand-in** (contracts/escrow/, not the canonical code, which no package
   * ships), on a fork of Base Sepolia the canonical contracts (`standIn` false).
   */
  authCapture: AuthCaptureContracts | null;
  /** Every escrow set the deployment lists, in its order (the first is `authCapture`). */
  authCaptureSets: AuthCaptureContracts[];
  /** The chain this one forks (FORK_URL), or null when it was built from nothing. */
  fork: ForkOptions | null;
  /** Whether blocks may share a timestamp (`LocalChainOptions.sameSecondBlocks`). */
  sameSecondBlocks: boolean;
  mine(blocks?: number): Promise<void>;
  /** Sets the L1 fee parameters (L1Block predeploy) every later transaction's L1 data fee is priced with. */
  setL1Fees(parameters: L1FeeParameters): Promise<void>;
  /**
   * Mines the next block `seconds` after the timestamp it would have had: the pending block's (a pinned
   * one included), at least the head's plus a second (the head's own with `sameSecondBlocks`; a
   * Base-like node answers pending as latest).
   */
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
  /** Leave our contracts undeployed (the CREATE2 deployer and USDC are still placed): deploy tests. */
  withoutContracts?: boolean;
  /**
   * Fork this chain instead of building one (Base Sepolia, or a local chain standing in for it);
   * default: `FORK_URL` (and `FORK_BLOCK`) from the environment; null forces a fresh chain.
   */
  fork?: ForkOptions | null;
  /**
   * The order EDR's pool mines in: "fifo" (default), arrival order, as Base's sequencer orders a
   * 200 ms block; "priority" (EDR's own default), by tip, for a test about a better-paying
   * transaction going first.
   */
  mempoolOrder?: "fifo" | "priority";
  /**
   * Blocks may share a whole-second timestamp, as about five of Base's do since Denim (EDR's
   * `allowBlocksWithSameTimestamp`): what the Base node in front of the chain (base-node.ts) needs.
   * Off (default), each block is at least a second after the one before, and `mine(n)` moves the
   * clock by n seconds, which the tests that count in blocks rely on.
   */
  sameSecondBlocks?: boolean;
}

export interface ForkOptions {
  url: string;
  /** The block to fork at; default the upstream's latest. */
  blockNumber?: bigint;
}

/** The fork the environment asks for: `FORK_URL`, optional `FORK_BLOCK`; null when FORK_URL is unset. */
export function forkFromEnvironment(env: NodeJS.ProcessEnv = process.env): ForkOptions | null {
  const url = env.FORK_URL?.trim();
  if (!url) return null;
  const block = env.FORK_BLOCK?.trim();
  if (block && !/^[0-9]+$/.test(block)) throw new Error(`FORK_BLOCK must be a block number, got "${block}"`);
  return { url, ...(block ? { blockNumber: BigInt(block) } : {}) };
}

/**
 * Starts the local chain that plays Base Sepolia: chain id 84532, the canonical CREATE2 deployer,
 * Circle's USDC (FiatTokenV2_2 behind FiatTokenProxy) at the real Base Sepolia USDC address, our contracts at the addresses
 * `deployments/84532.json` names (same CREATE2 parameters as the real chain), a stand-in for Commerce
 * Payments' escrow and collector at their canonical addresses (see `authCapture`), the local relayer
 * allowed, and every derived account funded with ETH and 1,000,000 USDC.
 */
export async function startLocalChain(options: LocalChainOptions = {}): Promise<LocalChain> {
  const fork = options.fork === undefined ? forkFromEnvironment() : options.fork;
  const mining = { auto: true, interval: 0, mempool: { order: options.mempoolOrder ?? "fifo" } };
  const connection = await network.create({
    override: {
      mining,
      allowBlocksWithSameTimestamp: options.sameSecondBlocks ?? false,
      ...(fork ? { forking: { url: fork.url, ...(fork.blockNumber !== undefined ? { blockNumber: fork.blockNumber } : {}) } } : {}),
    },
  });
  // Calls answered as Base answers them: without the L1 data fee (see callsWithoutL1Fee).
  const direct = callsWithoutL1Fee(connection.provider as unknown as RequestProvider);
  let route: RequestProvider | null = null;
  const provider: RequestProvider = { request: (args) => (route ?? direct).request(args) };
  const deployment = loadLiveDeployment(LOCAL_CHAIN_ID);
  const transport = custom(provider, { retryCount: 0 });
  const chain = baseSepolia;
  const publicClient = createPublicClient({ chain, transport, cacheTime: 0 }) as PublicClient;
  const testClient = createTestClient({ chain, mode: "hardhat", transport });
  const wallet = (account: HDAccount) => createWalletClient({ account, chain, transport });
  const rpcWallet = createWalletClient({ chain, transport });
  const accounts = Array.from({ length: LOCAL_ACCOUNT_COUNT }, (_, i) => localAccount(i));
  const deployer = accounts[LOCAL_ROLES.deployer]!;

  const chainId = await publicClient.getChainId();
  if (chainId !== LOCAL_CHAIN_ID) throw new Error(`hardhat network has chain id ${chainId}, expected ${LOCAL_CHAIN_ID}`);
  for (const account of accounts) await testClient.setBalance({ address: account.address, value: parseEther("10000") });

  // The L1 data fee, as on Base: an ordinary L1 market with Base's scalars, written where L1Block
  // keeps them (EDR's defaults sit at offsets nothing reads, so every l1Fee was 0). A fork keeps the
  // forked chain's values.
  if (!fork) await setL1Fees({ publicClient, testClient }, L1_FEE_LEVELS.normal);

  // The CREATE2 deployer, as on every real chain.
  const deployerCode = await publicClient.getCode({ address: deployment.create2Deployer });
  if (!deployerCode || deployerCode === "0x") {
    await testClient.setCode({ address: deployment.create2Deployer, bytecode: CREATE2_DEPLOYER_RUNTIME });
  }

  // Circle's USDC (FiatTokenV2_2 behind FiatTokenProxy) at the real Base Sepolia USDC address,
  // initialised as on Base Sepolia, with known local accounts in its roles. On a fork USDC is
  // already there: its code and state stay; the local keys take over its roles.
  const usdcRoles = localUsdcRoles();
  for (const role of Object.values(usdcRoles)) await testClient.setBalance({ address: role.address, value: parseEther("10000") });
  const usdcClients = { chain, publicClient, testClient, wallet, rpcWallet };
  if (fork) {
    const usdcCode = await publicClient.getCode({ address: deployment.token.address });
    if (!usdcCode || usdcCode === "0x") throw new Error(`the forked chain (${fork.url}) has no USDC at ${deployment.token.address}`);
    await adoptFiatToken(usdcClients, deployment.token.address, usdcRoles);
  } else {
    await placeFiatToken(usdcClients, deployment.token.address, usdcRoles);
  }

  // Multicall3, an OP-stack preinstall on Base and Base Sepolia.
  await placeMulticall3({ publicClient, testClient });

  // Commerce Payments' escrow and EIP-3009 collector at their canonical addresses: a stand-in of the
  // project's own where the chain has none (the real ones on Base Sepolia stay on a fork).
  const authCaptureSets = await placeAuthCaptureStandIns({ publicClient, testClient }, deployment);
  const authCapture = authCaptureSets[0] ?? null;

  // Our contracts through CREATE2, with the parameters of deployments/84532.json.
  if (!options.withoutContracts) await deployOurContracts();
  async function deployOurContracts() {
    for (const planned of planContracts(deployment, deployment.parameters)) {
      const result = await deployCreate2(
        { public: publicClient, wallet: wallet(deployer) },
        deployer,
        chain,
        deployment.create2Deployer,
        deployment.salt as Hex,
        planned.initCode,
      );
      // Nothing of ours below the recorded deployBlock: the payments list and the depositor search
      // read no lower (a fork deploys far above it).
      if (result.blockNumber !== null && result.blockNumber < BigInt(deployment.deployBlock ?? 0)) {
        throw new Error(`${planned.name} deployed in block ${result.blockNumber}, below deployments/84532.json's deployBlock ${deployment.deployBlock}`);
      }
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
    const allowHash = await rpcWallet.sendTransaction({
      account: owner,
      to: deployment.contracts.RecurringCharges.address,
      data: encodeFunctionData({ abi: recurringChargesAbi, functionName: "setRelayer", args: [relayer.address, true] }),
    });
    await publicClient.waitForTransactionReceipt({ hash: allowHash });
    await testClient.stopImpersonatingAccount({ address: owner });
  }

  // Every account holds exactly 1,000,000 USDC: minted on a fresh chain, written into FiatToken's
  // balance slots on a fork (whatever the forked chain held).
  if (fork)
    await writeFiatTokenBalances(
      usdcClients,
      deployment.token.address,
      accounts.map((a) => a.address),
      LOCAL_USDC_UNITS,
    );
  else
    for (const account of accounts) {
      const hash = await wallet(usdcRoles.minter).writeContract({
        address: deployment.token.address,
        abi: fiatTokenAbi,
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
    direct,
    routeThrough: (node) => {
      route = node;
    },
    rpcUrl: served?.url ?? null,
    publicClient,
    testClient,
    wallet,
    accounts,
    usdcRoles,
    authCapture,
    authCaptureSets,
    fork,
    sameSecondBlocks: options.sameSecondBlocks ?? false,
    mine: (blocks = 1) => testClient.mine({ blocks }),
    setL1Fees: (parameters) => setL1Fees({ publicClient, testClient }, parameters),
    advanceTime: async (seconds) => {
      // Pinned, not evm_increaseTime: a timestamp pinned for the next block (a test's, or the clock
      // helper's between tests) would win over the increase, and the block would not move at all.
      // EDR's pending block can stand a second below a head mined ahead of the wall clock: the head
      // bounds it.
      const [head, pending] = await Promise.all([publicClient.getBlock(), publicClient.getBlock({ blockTag: "pending" })]);
      const earliest = head.timestamp + (options.sameSecondBlocks ? 0n : 1n);
      const next = pending.timestamp > earliest ? pending.timestamp : earliest;
      await testClient.setNextBlockTimestamp({ timestamp: next + BigInt(seconds) });
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
