// `npm run bench`'s sections 4 and 5 (scripts/bench.ts): recurring charges through a remote-like node
// (50 ms per round trip) against plain transfers back to back, and a merchant's renewal job over
// BENCH_RENEWALS subscriptions, each checked charged exactly once per period.
import { encodeFunctionData, erc20Abi, parseEventLogs, type Hex } from "viem";
import { recurringChargesAbi } from "../src/generated/contracts.js";
import { LOCAL_ROLES, type LocalChain } from "../dev/localchain/harness.js";
import { createService } from "../src/service.js";
import { configFor } from "../test/helpers/service.js";
import { RpcProxy } from "../test/helpers/rpc-proxy.js";
import { walletTypedData, type ResolvedTerms } from "../test/helpers/recurring.js";
import { approve } from "../test/helpers/tx.js";
import { bump, countOf, postJson, quiet, ratio, RPC_LATENCY_MS, seconds, serve, unlimited } from "./bench-common.js";

export interface ChargesBench {
  chain: LocalChain;
  merchant: LocalChain["accounts"][number];
  runs: (name: string) => boolean;
  sections: string[];
  subscriptions: number;
  renewals: number;
  inFlight: number;
}

/** Runs the charges and renewals sections that `runs` names, each table pushed to `sections`. */
export async function benchCharges({
  chain,
  merchant,
  runs,
  sections,
  subscriptions: SUBSCRIPTIONS,
  renewals: RENEWALS,
  inFlight: IN_FLIGHT,
}: ChargesBench): Promise<void> {
  // 4 and 5 share these: a service whose node is behind a proxy that adds RPC_LATENCY_MS per round trip
  // once `latencyMs` is set (setup runs without it), subscriptions signed locally, the baseline, gas.
  async function chargingService() {
    const slow = await new RpcProxy(chain.rpcUrl!).start();
    const charging = await createService(configFor(slow.url, { ...unlimited, WEBHOOKS_ENABLED: "false" }), quiet);
    const chargeApi = await serve(charging.app);
    const close = async () => {
      chargeApi.server.closeAllConnections();
      chargeApi.server.close();
      await charging.close();
      await slow.close();
    };
    return { slow, charging, chargeApi, close };
  }

  /** Creates, resolves, signs locally (the payer's wallet) and finalizes `count` subscriptions, `atOnce` at a time. */
  async function subscribeMany(base: string, payer: (typeof chain.accounts)[number], count: number, period: number, atOnce: number) {
    const subscriptions: Array<{ token: string; id: Hex }> = new Array(count);
    let next = 0;
    let done = 0;
    await Promise.all(
      Array.from({ length: Math.min(atOnce, count) }, async () => {
        while (next < count) {
          const i = next++;
          const created = await postJson(base, "/v1/subscriptions", { recipient: merchant.address, amount: "1", period });
          const resolved = await postJson(base, "/v1/subscriptions/resolve", { setup_token: created.body.setup_token });
          const signature = await payer.signTypedData(walletTypedData(resolved.body as unknown as ResolvedTerms, payer.address) as never);
          const finalized = await postJson(base, "/v1/subscriptions/finalize", { setup_token: created.body.setup_token, payer: payer.address, signature });
          if (finalized.status !== 200) throw new Error(JSON.stringify(finalized.body));
          subscriptions[i] = { token: finalized.body.subscription as string, id: finalized.body.subscription_id as Hex };
          if (++done % 1000 === 0) console.log(`  ${done}/${count} subscriptions set up`);
        }
      }),
    );
    return subscriptions;
  }

  /** Baseline: plain token transfers signed locally and sent back to back through `slow`, one round trip each. */
  async function plainTransfers(charging: Awaited<ReturnType<typeof chargingService>>, count: number) {
    const sender = chain.accounts[LOCAL_ROLES.firstUser + 4]!;
    let nonce = await chain.publicClient.getTransactionCount({ address: sender.address, blockTag: "pending" });
    const fees = await chain.publicClient.estimateFeesPerGas();
    charging.slow.latencyMs = RPC_LATENCY_MS;
    const start = performance.now();
    for (let i = 0; i < count; i++) {
      const raw = await sender.signTransaction({
        chainId: chain.chain.id,
        type: "eip1559",
        nonce: nonce++,
        to: chain.deployment.token.address,
        gas: 100_000n,
        data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [merchant.address, 1n] }),
        maxFeePerGas: fees.maxFeePerGas * 2n,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      });
      await charging.charging.client.sendRawTransaction({ serializedTransaction: raw });
    }
    charging.slow.latencyMs = 0;
    return { count, perSecond: count / ((performance.now() - start) / 1000) };
  }

  /** Gas per charge over the transactions `hashes` (read straight from the chain, 100 receipts at a time). */
  async function gasOf(hashes: Set<Hex>) {
    let gas = 0n;
    let charged = 0;
    const all = [...hashes];
    for (let i = 0; i < all.length; i += 100) {
      const receipts = await Promise.all(all.slice(i, i + 100).map((hash) => chain.publicClient.getTransactionReceipt({ hash })));
      for (const receipt of receipts) {
        gas += receipt.gasUsed;
        charged += parseEventLogs({ abi: recurringChargesAbi, eventName: "Charged", logs: receipt.logs }).length;
      }
    }
    return { perCharge: charged ? Number(gas) / charged : 0, transactions: hashes.size };
  }

  // 4. Recurring charges through a remote-like node (50 ms per round trip).
  if (runs("charges")) {
    console.log(`charging ${SUBSCRIPTIONS} subscriptions with ${RPC_LATENCY_MS} ms per JSON-RPC round trip…`);
    const charging = await chargingService();
    const { slow, chargeApi } = charging;
    const payer = chain.accounts[LOCAL_ROLES.firstUser + 3]!;
    const period = 3600;
    const subscriptions = (await subscribeMany(chargeApi.url, payer, SUBSCRIPTIONS, period, 1)).map((s) => s.token);
    await approve(chain, payer, chain.deployment.token.address, chain.deployment.contracts.RecurringCharges.address, 10n ** 15n);
    const baseline = await plainTransfers(charging, Math.min(SUBSCRIPTIONS, 100));
    const transfers = baseline.count;
    const transfersPerSecond = baseline.perSecond;

    const chargeAll = async () => {
      slow.reset();
      slow.latencyMs = RPC_LATENCY_MS;
      const start = performance.now();
      const answers = await Promise.all(subscriptions.map((subscription) => postJson(chargeApi.url, "/v1/charges", { subscription })));
      const elapsed = performance.now() - start;
      const statuses = new Map<string, number>();
      for (const a of answers) bump(statuses, String(a.body.status ?? a.body.error));
      const hashes = new Set(answers.map((a) => a.body.tx_hash as Hex | undefined).filter((h): h is Hex => !!h));
      return {
        elapsed,
        perSecond: SUBSCRIPTIONS / (elapsed / 1000),
        statuses: countOf(statuses),
        hashes,
        calls: slow.count(),
        requests: slow.requests,
      };
    };
    const first = await chargeAll();
    slow.latencyMs = 0;
    await chain.mine(3);
    const firstGas = await gasOf(first.hashes);
    await chain.advanceTime(period);
    const renewal = await chargeAll();
    slow.latencyMs = 0;
    await chain.mine(3);
    const renewalGas = await gasOf(renewal.hashes);
    sections.push(
      [
        `| ${SUBSCRIPTIONS} subscriptions at once, ${RPC_LATENCY_MS} ms per round trip | Per second | vs plain transfers back to back | Wall time | Answers | Transactions | Gas per charge | JSON-RPC calls (round trips) per charge |`,
        "|---|---:|---:|---:|---|---:|---:|---:|",
        `| plain transfers back to back (baseline) | ${transfersPerSecond.toFixed(1)} | 1.00× | ${seconds((transfers / transfersPerSecond) * 1000)} s for ${transfers} | | ${transfers} | | 1 (1) |`,
        `| first charges | ${first.perSecond.toFixed(1)} | ${ratio(first.perSecond, transfersPerSecond)}× | ${seconds(first.elapsed)} s | ${first.statuses} | ${firstGas.transactions} | ${firstGas.perCharge.toFixed(0)} | ${(first.calls / SUBSCRIPTIONS).toFixed(1)} (${(first.requests / SUBSCRIPTIONS).toFixed(1)}) |`,
        `| renewals (next period) | ${renewal.perSecond.toFixed(1)} | ${ratio(renewal.perSecond, transfersPerSecond)}× | ${seconds(renewal.elapsed)} s | ${renewal.statuses} | ${renewalGas.transactions} | ${renewalGas.perCharge.toFixed(0)} | ${(renewal.calls / SUBSCRIPTIONS).toFixed(1)} (${(renewal.requests / SUBSCRIPTIONS).toFixed(1)}) |`,
      ].join("\n"),
    );
    await charging.close();
  }

  // 5. A merchant's renewal job: RENEWALS subscriptions renewed through POST /v1/charges with 50 ms per
  // round trip, at most IN_FLIGHT requests outstanding; 429s retried after their Retry-After.
  if (runs("renewals")) {
    console.log(`renewals: setting up ${RENEWALS} subscriptions (not measured)…`);
    const charging = await chargingService();
    const { slow, chargeApi } = charging;
    const payer = chain.accounts[LOCAL_ROLES.firstUser + 5]!;
    // Monthly: the local chain's clock moves at least 1 s per block (one block per transaction), so
    // 10,000 charges move it ~3 hours; a shorter period would be crossed while the job runs.
    const period = 30 * 86_400;
    const setupStart = performance.now();
    const subscriptions = await subscribeMany(chargeApi.url, payer, RENEWALS, period, 16);
    await approve(chain, payer, chain.deployment.token.address, chain.deployment.contracts.RecurringCharges.address, 10n ** 15n);
    console.log(`  set up in ${seconds(performance.now() - setupStart)} s`);
    const baseline = await plainTransfers(charging, 100);

    /** Sends every subscription's charge, IN_FLIGHT at a time, until each is answered CHARGED or CONFIRMING (or refused without Retry-After). */
    const job = async (label: string) => {
      slow.reset();
      slow.latencyMs = RPC_LATENCY_MS;
      const fromBlock = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
      const statuses = new Map<string, number>();
      const retriedErrors = new Map<string, number>();
      const hashes = new Set<Hex>();
      const periods = new Map<Hex, number>();
      let next = 0;
      let answered = 0;
      let retried429 = 0;
      const start = performance.now();
      let reported = start;
      await Promise.all(
        Array.from({ length: Math.min(IN_FLIGHT, subscriptions.length) }, async () => {
          while (next < subscriptions.length) {
            const { token, id } = subscriptions[next++]!;
            for (let attempt = 1; ; attempt++) {
              const response = await fetch(`${chargeApi.url}/v1/charges`, {
                method: "POST",
                headers: { "content-type": "application/json" },
                body: JSON.stringify({ subscription: token }),
              });
              const body = (await response.json()) as Record<string, unknown>;
              const retryAfter = response.headers.get("retry-after");
              if (response.status === 200 || retryAfter === null || attempt === 20) {
                bump(statuses, String(body.status ?? body.error));
                if (typeof body.tx_hash === "string") hashes.add(body.tx_hash as Hex);
                if (typeof body.period_index === "number") periods.set(id, body.period_index);
                break;
              }
              if (body.error === "CONCURRENCY_LIMIT") retried429++;
              else bump(retriedErrors, String(body.error));
              await new Promise((r) => setTimeout(r, Number(retryAfter) * 1000));
            }
            answered++;
            if (performance.now() - reported >= 10_000) {
              reported = performance.now();
              console.log(
                `  ${label}: ${answered}/${subscriptions.length} answered in ${seconds(reported - start)} s, ${retried429} 429s retried, ${countOf(statuses)}`,
              );
            }
          }
        }),
      );
      const elapsed = performance.now() - start;
      slow.latencyMs = 0;
      return {
        fromBlock,
        elapsed,
        perSecond: subscriptions.length / (elapsed / 1000),
        statuses,
        retried429,
        retriedErrors,
        hashes,
        periods,
        calls: slow.count(),
        requests: slow.requests,
      };
    };

    console.log(`  first charges: ${RENEWALS}, ${IN_FLIGHT} in flight, ${RPC_LATENCY_MS} ms per round trip…`);
    const first = await job("first charges");
    await chain.mine(3);
    const firstGas = await gasOf(first.hashes);
    await chain.advanceTime(period);
    console.log(`  renewals: ${RENEWALS}, ${IN_FLIGHT} in flight, ${RPC_LATENCY_MS} ms per round trip…`);
    const renewal = await job("renewals");
    await chain.mine(3);
    const renewalGas = await gasOf(renewal.hashes);

    // Each subscription charged exactly once for each period: the Charged events since the first charge.
    const charged = new Map<string, number>();
    const ours = new Set(subscriptions.map((s) => s.id));
    const events = await chain.publicClient.getContractEvents({
      address: chain.deployment.contracts.RecurringCharges.address,
      abi: recurringChargesAbi,
      eventName: "Charged",
      fromBlock: first.fromBlock,
      toBlock: "latest",
    });
    for (const event of events) if (ours.has(event.args.subscriptionId!)) bump(charged, `${event.args.subscriptionId}:${event.args.periodIndex}`);
    const twice = [...charged.values()].filter((n) => n > 1).length;
    const onceIn = (r: typeof first) => subscriptions.filter(({ id }) => r.periods.has(id) && charged.get(`${id}:${r.periods.get(id)}`) === 1).length;
    const renewalPeriods = new Set(renewal.periods.values());
    const firstOnce = onceIn(first);
    const renewedOnce = onceIn(renewal);
    const ok = (r: typeof first) => [...r.statuses.keys()].every((s) => s === "CHARGED" || s === "CONFIRMING");
    if (twice > 0 || firstOnce !== RENEWALS || renewedOnce !== RENEWALS || !ok(first) || !ok(renewal)) {
      console.error(`renewals: ${twice} (subscription, period) pairs charged twice; ${firstOnce} and ${renewedOnce} of ${RENEWALS} charged once`);
      process.exitCode = 1;
    }
    const row = (name: string, r: typeof first, gas: Awaited<ReturnType<typeof gasOf>>) =>
      `| ${name} | ${r.perSecond.toFixed(1)} | ${ratio(r.perSecond, baseline.perSecond)}× | ${(r.elapsed / 60_000).toFixed(2)} min | ${countOf(r.statuses)} | ${r.retried429}${r.retriedErrors.size ? `; others ${countOf(r.retriedErrors)}` : ""} | ${gas.transactions} | ${gas.perCharge.toFixed(0)} | ${(r.calls / RENEWALS).toFixed(1)} (${(r.requests / RENEWALS).toFixed(2)}) |`;
    sections.push(
      [
        `| ${RENEWALS.toLocaleString("en")} subscriptions, ${IN_FLIGHT} requests in flight, ${RPC_LATENCY_MS} ms per round trip | Per second | vs plain transfers back to back | Wall time | Answers | 429s retried | Transactions | Gas per charge | JSON-RPC calls (round trips) per charge |`,
        "|---|---:|---:|---:|---|---:|---:|---:|---:|",
        `| plain transfers back to back (baseline) | ${baseline.perSecond.toFixed(1)} | 1.00× | ${seconds((baseline.count / baseline.perSecond) * 1000)} s for ${baseline.count} | | | ${baseline.count} | | 1 (1) |`,
        row(`first charges (period ${[...new Set(first.periods.values())].join(", ")})`, first, firstGas),
        row(`renewals (period ${[...renewalPeriods].join(", ")})`, renewal, renewalGas),
        "",
        `Charged events counted per subscription and period: ${renewedOnce.toLocaleString("en")} of ${RENEWALS.toLocaleString("en")} renewed exactly once (${firstOnce.toLocaleString("en")} first charges once), ${twice} charged twice.`,
      ].join("\n"),
    );
    await charging.close();
  }
}
