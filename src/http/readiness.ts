import type { PublicClient } from "viem";
import type { LiveDeployment } from "../deployments.js";
import type { Database } from "../store/database.js";

export interface Readiness {
  ready: boolean;
  checks: { chain: boolean; contracts: boolean; store: boolean };
}

/** /ready's probe: the node answers for the right chain, our Splitter has code there, and the store answers. */
export function readinessProbe(client: PublicClient, deployment: LiveDeployment, database: Pick<Database, "query">): () => Promise<Readiness> {
  return async () => {
    const checks = { chain: false, contracts: false, store: false };
    try {
      checks.chain = (await client.getChainId()) === deployment.chainId;
      const code = await client.getCode({ address: deployment.contracts.Splitter.address });
      checks.contracts = !!code && code !== "0x";
    } catch {
      // not ready
    }
    try {
      await database.query("SELECT 1");
      checks.store = true;
    } catch {
      // not ready
    }
    return { ready: checks.chain && checks.contracts && checks.store, checks };
  };
}
