import type { PublicClient } from "viem";
import { createChainClient } from "../chain/client.js";
import { checkTokenDomain, TokenDomainMismatchError } from "../chain/token-domain.js";
import type { Finality } from "../config.js";
import { loadLiveDeployment, type LiveDeployment } from "../deployments.js";
import { type BaseRoom, firstLine } from "./base.js";

/** Where our contracts are and how the chain is read; what most domains take as `chain`. */
export interface ChainRoom {
  rpcUrl: string;
  deployment: LiveDeployment;
  client: PublicClient;
  chain: { client: PublicClient; deployment: LiveDeployment; finality: Finality };
}

export async function chainRoom({ config, deps, logger, metrics }: BaseRoom): Promise<ChainRoom> {
  if (!config.rpcUrl) throw new Error("no RPC_URL: start the embedded chain first (npm start does)");
  const deployment = deps.deployment ?? loadLiveDeployment(config.chainId);
  const client = createChainClient(config.chainId, config.rpcUrl, config.rpcTimeoutMs, metrics.countRpc);
  // The token's EIP-712 domain as recorded must be the one the token hashes, or every permit and
  // authorization signed over it fails: refuse to start on a mismatch (skip the check if the chain cannot be asked now).
  try {
    await checkTokenDomain(client, deployment.chainId, deployment.token.address, deployment.token.eip712);
  } catch (error) {
    if (error instanceof TokenDomainMismatchError) throw error;
    logger.warn({ error: firstLine(error) }, "could not check the token's EIP-712 domain against the chain");
  }
  return { rpcUrl: config.rpcUrl, deployment, client, chain: { client, deployment, finality: config.finality } };
}
