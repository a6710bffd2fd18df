import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { getAddress, type Address } from "viem";

/** The folder that holds `deployments/<chain id>.json`: the only place contract addresses are written. */
export const DEPLOYMENTS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../deployments");

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "an address: 0x and 40 hex digits")
  .transform((a) => getAddress(a));
const unitsString = z.string().regex(/^[0-9]+$/, "an integer string of token units");

/** One deployment of Commerce Payments' escrow: its release's interface, the escrow and its EIP-3009 collector. */
export const EscrowSetSchema = z.strictObject({
  /** The Commerce Payments release whose interface the escrow speaks (`capture` and `charge` naming a fee amount: v1.1). */
  version: z.enum(["v1.1"]),
  escrow: address,
  eip3009Collector: address,
});
export type EscrowSet = z.infer<typeof EscrowSetSchema>;

/** One environment's deployment: chain, token, our contracts and the parameters they were built with. */
export const DeploymentSchema = z.strictObject({
  /** `test` (Base Sepolia, 84532; the local chain plays it) or `production` (Base, 8453). */
  environment: z.enum(["test", "production"]),
  chainId: z.number().int().positive(),
  /** The canonical CREATE2 deployer every contract address is derived from. */
  create2Deployer: address,
  /** The CREATE2 salt shared by our contracts. */
  salt: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
  token: z.strictObject({
    address,
    symbol: z.string(),
    decimals: z.number().int(),
    /**
     * The token's EIP-712 domain name and version, as its contract hashes them (USDC: "USDC"/"2" on
     * Base Sepolia, "USD Coin"/"2" on Base). Every permit and authorization is signed over them.
     */
    eip712: z.strictObject({ name: z.string().min(1), version: z.string().min(1) }),
  }),
  /**
   * The block of the first of our contracts' deployment transactions: nothing of ours logs below it,
   * so the payments list and the depositor search read from here, never from block 0. Written by
   * `npm run deploy` (dev/deploy/deploy-environment.ts) when it deploys; absent: block 0.
   */
  deployBlock: z.number().int().nonnegative().optional(),
  /**
   * Commerce Payments' `AuthCaptureEscrow` deployments this service calls, each with its EIP-3009
   * payment collector and the release whose interface it speaks: the same addresses on Base and Base
   * Sepolia (CREATE2). The first is the set holds use (the one `@x402/evm` signs for by default); the
   * x402 facilitator settles a payment naming any of them. Not ours and not deployed by us; on the local
   * chain the project's stand-in sits at each (dev/localchain/auth-capture.ts).
   */
  authCapture: z
    .array(EscrowSetSchema)
    .min(1)
    .refine((sets) => new Set(sets.flatMap((s) => [s.escrow, s.eip3009Collector])).size === sets.length * 2, "each escrow and collector listed once")
    .optional(),
  /** The CREATE2 addresses `parameters` give; null until the parameters are chosen. */
  contracts: z
    .strictObject({
      Splitter: z.strictObject({ address }),
      RecurringCharges: z.strictObject({ address }),
      /** The x402 receivers' factory and settler (IX402Receivers): every merchant's static x402 `payTo`. */
      X402Receivers: z.strictObject({ address }),
    })
    .nullable(),
  /** The constructor arguments of the contracts; null until the protocol team chooses them. */
  parameters: z
    .strictObject({
      owner: address,
      feeCollector: address,
      feeBps: z.number().int().min(0).max(10_000),
      networkFeeUnits: unitsString,
      relayers: z.array(address),
    })
    .nullable(),
});
export type Deployment = z.infer<typeof DeploymentSchema>;
/** A deployment whose parameters and contract addresses are set. */
export type LiveDeployment = Deployment & {
  contracts: NonNullable<Deployment["contracts"]>;
  parameters: NonNullable<Deployment["parameters"]>;
};

/** The escrow set holds use: the first listed; null where the deployment lists none. */
export function holdsEscrowSet(deployment: Pick<Deployment, "authCapture">): EscrowSet | null {
  return deployment.authCapture?.[0] ?? null;
}

/** The first block that can hold our contracts' events (see `deployBlock`). */
export function deployBlockOf(deployment: Pick<Deployment, "deployBlock">): bigint {
  return BigInt(deployment.deployBlock ?? 0);
}

export function deploymentPath(chainId: number, dir = DEPLOYMENTS_DIR): string {
  return join(dir, `${chainId}.json`);
}

/** Reads and validates `deployments/<chain id>.json`; throws with the file name on any problem. */
export function loadDeployment(chainId: number, dir = DEPLOYMENTS_DIR): Deployment {
  const path = deploymentPath(chainId, dir);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (cause) {
    throw new Error(`cannot read deployment ${path}: ${(cause as Error).message}`);
  }
  const parsed = DeploymentSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`invalid deployment ${path}: ${z.prettifyError(parsed.error)}`);
  if (parsed.data.chainId !== chainId) throw new Error(`${path} says chainId ${parsed.data.chainId}`);
  return parsed.data;
}

/** Like {@link loadDeployment}, but refuses a deployment without parameters and addresses. */
export function loadLiveDeployment(chainId: number, dir = DEPLOYMENTS_DIR): LiveDeployment {
  const deployment = loadDeployment(chainId, dir);
  if (!isLive(deployment)) {
    throw new Error(`deployment ${deploymentPath(chainId, dir)} has no contract parameters yet`);
  }
  return deployment;
}

export function isLive(deployment: Deployment): deployment is LiveDeployment {
  return deployment.contracts !== null && deployment.parameters !== null;
}

export function writeDeployment(deployment: Deployment, dir = DEPLOYMENTS_DIR): string {
  const path = deploymentPath(deployment.chainId, dir);
  writeFileSync(path, JSON.stringify(DeploymentSchema.parse(deployment), null, 2) + "\n");
  return path;
}

export type { Address };
