// What payers are charged against what the relayer paid (`npm run bench -- --base`): a wave of
// renewals at each L2 base fee, charged ÷ paid from its `Charged` events and its receipts, against the
// promised band (docs/decisions.md "Fair reimbursement").
import { decodeFunctionData, parseEventLogs, parseGwei, type Hex, type PublicClient } from "viem";
import { recurringChargesAbi } from "../src/generated/contracts.js";
import type { LocalChain } from "../dev/localchain/harness.js";
import type { BaseNode } from "../dev/localchain/base-node.js";
import { formatAmount } from "../src/money.js";
import { weiToUnits, type GasPricing } from "../src/recurring/gas-quote.js";
import { bump, countOf } from "./bench-common.js";

export interface ReimbursementContext {
  chain: LocalChain;
  node: BaseNode;
  client: PublicClient;
  api: string;
  pricing: GasPricing;
  subscriptions: Array<{ token: string }>;
  inFlight: number;
  period: number;
  postJson: (base: string, path: string, body: unknown) => Promise<{ status: number; retryAfter: string | null; body: Record<string, unknown> }>;
}

/** One row per L2 base fee (gwei); sets the exit code when a wave falls outside the band or misses a renewal. */
export async function reimbursementRows(ctx: ReimbursementContext, baseFees: string[]): Promise<string[]> {
  const { chain, node, client, pricing, postJson } = ctx;
  const rows: string[] = [];
  for (const gwei of baseFees) {
    await chain.advanceTime(ctx.period);
    await node.setBaseFee(parseGwei(gwei));
    console.log(`reimbursement: ${ctx.subscriptions.length} renewals at an L2 base fee of ${gwei} gwei…`);
    const wave = ctx.subscriptions;
    const waveHashes = new Set<Hex>();
    const waveStatuses = new Map<string, number>();
    let at = 0;
    await Promise.all(
      Array.from({ length: Math.min(ctx.inFlight, wave.length) }, async () => {
        while (at < wave.length) {
          const { token } = wave[at++]!;
          for (let attempt = 1; ; attempt++) {
            const answer = await postJson(ctx.api, "/v1/charges", { subscription: token });
            if (answer.status === 200 || answer.retryAfter === null || attempt === 20) {
              bump(waveStatuses, `${answer.status} ${String(answer.body.status ?? answer.body.error)}`);
              if (typeof answer.body.tx_hash === "string") waveHashes.add(answer.body.tx_hash as Hex);
              break;
            }
            await new Promise((r) => setTimeout(r, Number(answer.retryAfter) * 1000));
          }
        }
      }),
    );
    // The band is promised for batched renewals; a renewal that went alone (a straggler of the wave, sent
    // with `charge`) keeps its own price, the dearest lone renewal's, and is counted apart.
    const batched = { paidWei: 0n, networkFees: 0n, reimbursements: 0n, renewals: 0, txs: 0 };
    const alone = { paidWei: 0n, networkFees: 0n, reimbursements: 0n, renewals: 0, txs: 0 };
    for (const hash of waveHashes) {
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 200, timeout: 300_000 });
      const { input } = await client.getTransaction({ hash });
      const into = decodeFunctionData({ abi: recurringChargesAbi, data: input }).functionName === "chargeBatch" ? batched : alone;
      into.txs++;
      into.paidWei += receipt.gasUsed * receipt.effectiveGasPrice + ((receipt as { l1Fee?: bigint | null }).l1Fee ?? 0n);
      for (const e of parseEventLogs({ abi: recurringChargesAbi, eventName: "Charged", logs: receipt.logs })) {
        into.networkFees += e.args.networkFee;
        into.reimbursements += e.args.gasReimbursement;
        into.renewals++;
      }
    }
    const paid = weiToUnits(batched.paidWei, pricing);
    const charged = batched.networkFees + batched.reimbursements;
    const ceiling = batched.networkFees > (paid * 13n) / 10n ? batched.networkFees : (paid * 13n) / 10n;
    const within = charged * 100n >= paid * 95n && charged <= ceiling;
    const renewed = batched.renewals + alone.renewals;
    if (!within || renewed !== wave.length) {
      console.error(
        `reimbursement at ${gwei} gwei: answers ${countOf(waveStatuses)}; ${renewed}/${wave.length} charged; batched: charged ${charged}, paid ${paid} (units)`,
      );
      process.exitCode = 1;
    }
    const each = (units: bigint, n: number) => formatAmount(n ? units / BigInt(n) : 0n);
    const alonePaid = weiToUnits(alone.paidWei, pricing);
    const aloneCharged = alone.networkFees + alone.reimbursements;
    const aloneCell = alone.renewals
      ? `${alone.renewals}: charged ${each(aloneCharged, alone.renewals)}, paid ${each(alonePaid, alone.renewals)} (${(Number(aloneCharged) / Number(alonePaid || 1n)).toFixed(2)}×)`
      : "none";
    rows.push(
      `| ${gwei} gwei | ${batched.renewals.toLocaleString("en")} in ${batched.txs} | ${each(paid, batched.renewals)} | ${each(batched.networkFees, batched.renewals)} | ${each(batched.reimbursements, batched.renewals)} | ${each(charged, batched.renewals)} | ${(Number(charged) / Number(paid || 1n)).toFixed(2)}× | ${(Number(ceiling) / Number(paid || 1n)).toFixed(2)}× | ${within ? "yes" : "NO"} | ${aloneCell} |`,
    );
  }
  await node.setBaseFee(null);
  return rows;
}
