import { authCaptureEscrowAbi } from "../generated/contracts.js";
import { erc20Abi, pad, toEventSelector, type Address, type PublicClient } from "viem";
import { blocksIn } from "../block-time.js";
import { CHARGED_EVENT, REVOKED_EVENT } from "../chain/contracts/recurring-charges.js";
import { PAID_EVENT } from "../chain/contracts/splitter.js";
import { ChainFollower } from "../chain/follower.js";
import { ChainNodes } from "../chain/nodes.js";
import { webSocketFeed } from "../chain/ws-feed.js";
import { checkTokenDomain, TokenDomainMismatchError } from "../chain/token-domain.js";
import type { Config, Finality } from "../config.js";
import { sharedHosts } from "../config-nodes.js";
import { holdsEscrowSet, loadLiveDeployment, type LiveDeployment } from "../deployments.js";
import { type BaseRoom, firstLine } from "./base.js";

/** Where our contracts are and how the chain is read; what most domains take as `chain`. */
export interface ChainRoom {
  rpcUrl: string;
  /** The chain's nodes (RPC_URLS): `client` reads through them, verdicts ask a majority of them. */
  nodes: ChainNodes;
  deployment: LiveDeployment;
  client: PublicClient;
  chain: { client: PublicClient; deployment: LiveDeployment; finality: Finality };
  /** The one follower of the chain's head (the deposit settler and the watcher are added as its consumers). */
  follower: ChainFollower;
}

/**
 * Blocks each follower round reads again behind the last one read, as a duration: a short reorg, a
 * node that answered a range up to a head it had not reached with what it had (the next round's
 * read, or the other node asked, has the rest). The deposit settler's overlap is the same.
 */
export const REREAD_SECONDS = 15;
/** Recipients in one pushed `logs` filter (providers cap a filter's alternatives; more are split across subscriptions). */
const RECIPIENTS_PER_FILTER = 1_000;
/** How long the logs of our own contracts stay in memory behind the head (`safe` lags minutes on Base). */
const KEEP_CONTRACT_LOGS_SECONDS = 900;

/** The escrow's events the hold watcher reads. */
const HOLD_EVENT_TOPICS = authCaptureEscrowAbi
  .filter((i) => i.type === "event" && ["PaymentAuthorized", "PaymentCharged", "PaymentCaptured", "PaymentVoided", "PaymentReclaimed"].includes(i.name))
  .map((e) => toEventSelector(e as never));

export async function chainRoom({ config, deps, logger, metrics, now }: BaseRoom): Promise<ChainRoom> {
  if (!config.rpcUrl) throw new Error("no RPC_URL: start the embedded chain first (npm start does)");
  const deployment = deps.deployment ?? loadLiveDeployment(config.chainId);
  const nodes = chainNodes(config, { logger, metrics, now });
  const client = nodes.reader();
  // Each node must be on the deployment's chain: one that is not stops the start, named by its position.
  await nodes.checkChainIds();
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
  // The holds' escrow is followed like our contracts (its events feed the hold watcher), where the deployment names one.
  const escrow = holdsEscrowSet(deployment)?.escrow;
  const contracts = [deployment.contracts.Splitter.address, deployment.contracts.RecurringCharges.address, ...(escrow ? [escrow] : [])];
  const transfer = toEventSelector(erc20Abi.find((i) => i.type === "event" && i.name === "Transfer")!);
  const contractEvents = [...[PAID_EVENT, CHARGED_EVENT, REVOKED_EVENT].map((e) => toEventSelector(e)), ...(escrow ? HOLD_EVENT_TOPICS : [])];
  // The follower reads through the best ranked node; its WebSocket (RPC_WS_URL) is one node's feed
  // of heads and logs, a hint that starts a round, never a verdict.
  const follower = new ChainFollower({
    client,
    filter: {
      address: [deployment.token.address, ...contracts],
      topics: [transfer, ...contractEvents],
    },
    // Pushed: our contracts' events, and the token's transfers to our recipients only (strangers'
    // transfers are no notification and start no round; the rounds' one eth_getLogs still reads them all).
    pushFilters: (recipients: Address[]) => [
      { address: contracts, topics: [contractEvents] },
      ...chunks(recipients, RECIPIENTS_PER_FILTER).map((to) => ({ address: [deployment.token.address], topics: [[transfer], null, to.map((r) => pad(r))] })),
    ],
    finality: config.finality,
    maxRangeBlocks: blocksIn(config.follow.logRangeSeconds, config.chainId),
    overlapBlocks: blocksIn(REREAD_SECONDS, config.chainId),
    keepLong: { address: contracts, blocks: blocksIn(KEEP_CONTRACT_LOGS_SECONDS, config.chainId) },
    now,
    feed: config.follow.wsUrl
      ? webSocketFeed(config.follow.wsUrl, config.rpcTimeoutMs, { onRequest: metrics.countRpc, onNotification: metrics.countNotification })
      : null,
  });
  return { rpcUrl: config.rpcUrl, nodes, deployment, client, chain: { client, deployment, finality: config.finality }, follower };
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The configured nodes (RPC_URLS, or RPC_URL alone), each known by its position only in logs and metrics. */
function chainNodes(config: Config, { logger, metrics, now }: Pick<BaseRoom, "logger" | "metrics" | "now">): ChainNodes {
  const urls = config.rpcUrls.length > 0 && config.rpcUrls[0] === config.rpcUrl ? config.rpcUrls : [config.rpcUrl!];
  // The start says how URLs of one host count, by positions only (a URL may carry a key).
  for (const pair of sharedHosts(urls))
    logger.warn(
      { nodes: pair },
      config.rpcQuorumUnsafe
        ? `RPC_URLS positions ${pair} share one host and count as two nodes in a majority (RPC_QUORUM_UNSAFE)`
        : `RPC_URLS positions ${pair} share one host and count once in a majority`,
    );
  return new ChainNodes(urls, {
    chainId: config.chainId,
    timeoutMs: config.rpcTimeoutMs,
    quorum: urls.length === config.rpcUrls.length ? config.rpcQuorum : 1,
    eachUrlCounts: config.rpcQuorumUnsafe,
    now,
    events: {
      onRequest: (position, failed, method) => {
        metrics.countRpc(method);
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
