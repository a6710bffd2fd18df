import type { PublicClient } from "viem";
import { ChainNodes } from "../chain/nodes.js";
import { checkTokenDomain, TokenDomainMismatchError } from "../chain/token-domain.js";
import type { Config, Finality } from "../config.js";
import { loadLiveDeployment, type LiveDeployment } from "../deployments.js";
import { type BaseRoom, firstLine } from "./base.js";

/** Where our contracts are and how the chain is read; what most domains take as `chain`. */
export interface ChainRoom {
  rpcUrl: string;
  /** The chain's nodes (RPC_URLS): `client` reads through them, verdicts ask a majority of them. */
  nodes: ChainNodes;
  deployment: LiveDeployment;
  client: PublicClient;
  chain: { client: PublicClient; deployment: LiveDeployment; finality: Finality; preconfirmations: Config["preconfirmations"] };
}

export async function chainRoom({ config, deps, logger, metrics, now }: BaseRoom): Promise<ChainRoom> {
  if (!config.rpcUrl) throw new Error("no RPC_URL: start the embedded chain first (npm start does)");
  const deployment = deps.deployment ?? loadLiveDeployment(config.chainId);
  const nodes = chainNodes(config, { logger, metrics, now });
  const client = nodes.reader();
  // Each node's head, read once at start, so a node far behind the others is never the first read.
  if (nodes.size > 1) void nodes.probeHeads();
  // The token's EIP-712 domain as recorded must be the one the token hashes, or every permit and
  // authorization signed over it fails: refuse to start on a mismatch (skip the check if the chain cannot be asked now).
  try {
    await checkTokenDomain(client, deployment.chainId, deployment.token.address, deployment.token.eip712);
  } catch (error) {
    if (error instanceof TokenDomainMismatchError) throw error;
    logger.warn({ error: firstLine(error) }, "could not check the token's EIP-712 domain against the chain");
  }
  return {
    rpcUrl: config.rpcUrl,
    nodes,
    deployment,
    client,
    chain: { client, deployment, finality: config.finality, preconfirmations: config.preconfirmations },
  };
}

/** The configured nodes (RPC_URLS, or RPC_URL alone), each known by its position only in logs and metrics. */
function chainNodes(config: Config, { logger, metrics, now }: Pick<BaseRoom, "logger" | "metrics" | "now">): ChainNodes {
  const urls = config.rpcUrls.length > 0 && config.rpcUrls[0] === config.rpcUrl ? config.rpcUrls : [config.rpcUrl!];
  return new ChainNodes(urls, {
    chainId: config.chainId,
    timeoutMs: config.rpcTimeoutMs,
    quorum: urls.length === config.rpcUrls.length ? config.rpcQuorum : 1,
    now,
    events: {
      onRequest: (position, failed) => {
        metrics.nodeRequests.inc({ node: String(position) });
        if (failed) metrics.nodeErrors.inc({ node: String(position) });
      },
      onSetAside: (position, reason) => {
        if (reason === "disagreed") metrics.disagreements.inc({ node: String(position) });
        logger.warn({ node: position, reason }, "a chain node is set aside for a while");
      },
    },
  });
}
