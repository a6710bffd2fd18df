// `npm run bench`'s holds section (scripts/bench.ts): the JSON-RPC reads each hold call takes for a hold
// authorized a week of chain time (100,000 blocks) ago, behind a node that refuses log ranges over
// 10,000 blocks.
import type { Hex } from "viem";
import { LOCAL_ROLES, startLocalChain } from "../dev/localchain/harness.js";
import { createService } from "../src/service.js";
import { configFor } from "../test/helpers/service.js";
import { RpcProxy } from "../test/helpers/rpc-proxy.js";
import { signWithMetaMask } from "../test/helpers/signers.js";
import { postJson, quiet, serve, unlimited } from "./bench-common.js";

const WEEK = 7 * 86_400;
const CAP = 10_000n;
const BLOCKS_BACK = 100_000;

/** Runs the holds section when `runs` names it, its table pushed to `sections`. */
export async function benchHolds(runs: (name: string) => boolean, sections: string[]): Promise<void> {
  if (!runs("holds")) return;
  const chain = await startLocalChain({ port: 0 });
  const node = await new RpcProxy(chain.rpcUrl!).start();
  const service = await createService(configFor(node.url, { ...unlimited, WEBHOOKS_ENABLED: "false" }), quiet);
  const api = await serve(service.app);
  try {
    const buyer = chain.accounts[LOCAL_ROLES.firstUser]!;
    const merchant = chain.accounts[LOCAL_ROLES.firstUser + 1]!;
    const call = async (path: string, body: object) => {
      const answer = await postJson(api.url, path, body);
      if (answer.status !== 200) throw new Error(`${path}: ${JSON.stringify(answer.body)}`);
      return answer.body;
    };
    const settle = async (sent: Record<string, unknown>) => {
      await chain.publicClient.waitForTransactionReceipt({ hash: sent.tx_hash as Hex });
      await chain.mine(3);
      await service.holdOperator!.follow();
    };
    const now = Number((await chain.publicClient.getBlock()).timestamp);
    const created = await call("/v1/holds", {
      recipient: merchant.address,
      amount: "10.00",
      capture_before: now + WEEK + 86_400,
      refund_before: now + 4 * WEEK,
    });
    const resolved = await call("/v1/holds/resolve", { hold: created.checkout_token, payer: buyer.address });
    await settle(
      await call("/v1/holds/authorize", {
        hold: created.checkout_token,
        payer: buyer.address,
        signature: signWithMetaMask(buyer, resolved.typed_data as never),
      }),
    );
    await chain.mine(BLOCKS_BACK);
    await chain.advanceTime(WEEK - BLOCKS_BACK);
    let refused = 0;
    node.refuse = (r) => {
      if (r.method !== "eth_getLogs") return false;
      const [filter] = r.params as [{ fromBlock: Hex; toBlock: Hex }];
      const wide = BigInt(filter.toBlock) - BigInt(filter.fromBlock) + 1n > CAP;
      if (wide) refused++;
      return wide;
    };
    const rows: string[] = [];
    const measure = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
      const [logs, all, refusedBefore] = [node.count("eth_getLogs"), node.count(), refused];
      const start = performance.now();
      const result = await run();
      const ms = performance.now() - start;
      const row = { logs: node.count("eth_getLogs") - logs, all: node.count() - all, refused: refused - refusedBefore };
      rows.push(`| ${name} | ${row.all} | ${row.logs} | ${row.refused} | ${ms.toFixed(0)} |`);
      console.log(
        `holds, a week old behind a ${CAP} block cap: ${name}: ${row.all} JSON-RPC calls, ${row.logs} eth_getLogs (${row.refused} refused), ${ms.toFixed(0)} ms`,
      );
      return result;
    };
    await measure("POST /v1/holds/state", () => call("/v1/holds/state", { hold: created.hold }));
    const captured = await measure("POST /v1/holds/capture 4.00", () => call("/v1/holds/capture", { hold: created.hold, amount: "4.00" }));
    await settle(captured);
    await measure("POST /v1/holds/refund (prepare 1.00)", () => call("/v1/holds/refund", { hold: created.hold, amount: "1.00" }));
    await settle(await measure("POST /v1/holds/void", () => call("/v1/holds/void", { hold: created.hold })));
    await measure("POST /v1/holds/list, every page to the hold", async () => {
      let page = await call("/v1/holds/list", { recipient: merchant.address });
      while ((page.holds as unknown[]).length === 0 && page.next_before_block !== null) {
        page = await call("/v1/holds/list", { recipient: merchant.address, before_block: page.next_before_block });
      }
      if ((page.holds as unknown[]).length === 0) throw new Error("the list did not reach the hold");
    });
    sections.push(
      [
        `A hold authorized a week of chain time ago (${BLOCKS_BACK.toLocaleString("en")} blocks on the local chain), every call behind a node refusing log ranges over ${CAP.toLocaleString("en")} blocks (a count of the JSON-RPC calls each took, through the node's proxy):`,
        "",
        "| Call | JSON-RPC calls | eth_getLogs | Refused | ms |",
        "|---|---:|---:|---:|---:|",
        ...rows,
      ].join("\n"),
    );
  } finally {
    api.server.closeAllConnections();
    api.server.close();
    await service.close();
    await node.close();
    await chain.close();
  }
}
