// `npm run bench`'s month section (scripts/bench.ts): POST /v1/payments/list's reads over a merchant's
// month of payments on a counting fake node 13,000,000 blocks long.
import type { PublicClient } from "viem";
import { PaymentsList } from "../src/payments/payments-list.js";
import { FairGate } from "../src/limits/fair-gate.js";
import { loadLiveDeployment } from "../src/deployments.js";

/** Runs the month section when `runs` names it, its table pushed to `sections`. */
export async function benchMonth(runs: (name: string) => boolean, sections: string[]): Promise<void> {
  // A merchant's month of payments through POST /v1/payments/list's domain, on a counting fake node
  // 13,000,000 blocks long (a month of Base at 0.2 s): the eth_getLogs ranges asked (refused ones
  // included) to walk every page from the latest block to the deployment's, without a range cap and
  // behind a 10,000-block cap. A count of reads, not a time.
  if (runs("month")) {
    const MONTH_BLOCKS = 13_000_000n;
    /** Payments in the month: a pay settlement every 13,000 blocks (about 43 minutes). */
    const MONTH_PAYMENTS = 1_000n;
    const every = MONTH_BLOCKS / MONTH_PAYMENTS;
    const deployment = { ...loadLiveDeployment(84532), deployBlock: 0 };
    const paidAt = (block: bigint) => ({
      args: {
        paymentKey: `0x${block.toString(16).padStart(64, "0")}`,
        paymentReference: `0x${block.toString(16).padStart(64, "0")}`,
        recipient: "0x0000000000000000000000000000000000000002",
        payer: "0x0000000000000000000000000000000000000003",
        token: deployment.token.address,
        amount: 1_000_000n,
        fee: 20_000n,
      },
      blockNumber: block,
      logIndex: 2,
      transactionHash: `0x${block.toString(16).padStart(64, "0")}`,
      blockTimestamp: 1_796_000_000n + block / 5n,
    });
    const monthRows: string[] = [];
    for (const cap of [null, 10_000n]) {
      let ranges = 0;
      let refused = 0;
      let other = 0;
      const fakeNode = {
        getBlock: async (args: { blockNumber?: bigint }) => {
          other++;
          return { number: args.blockNumber ?? MONTH_BLOCKS, timestamp: 1_796_000_000n + (args.blockNumber ?? MONTH_BLOCKS) / 5n, hash: "0x" };
        },
        getTransaction: async (args: { hash: string }) => {
          other++;
          return { hash: args.hash, input: "0x" };
        },
        getLogs: async (args: { fromBlock: bigint; toBlock: bigint; event: { name: string } }) => {
          if (cap !== null && args.toBlock - args.fromBlock + 1n > cap) {
            refused++;
            throw new Error("query exceeds max block range");
          }
          ranges++;
          if (args.event.name !== "Paid") return [];
          const logs = [];
          for (let b = ((args.fromBlock + every - 1n) / every) * every; b <= args.toBlock; b += every) if (b > 0n) logs.push(paidAt(b));
          return logs;
        },
      } as unknown as PublicClient;
      const list = new PaymentsList({
        client: fakeNode,
        deployment,
        finality: { kind: "confirmations", confirmations: 0 },
        depositAddresses: { ofKey: async () => "0x0000000000000000000000000000000000000001" },
        gate: new FairGate(1, 1),
      });
      let pages = 0;
      let listed = 0;
      let before: bigint | undefined;
      do {
        const page = await list.list({
          recipient: "0x0000000000000000000000000000000000000002",
          limit: 100,
          ...(before !== undefined ? { beforeBlock: before } : {}),
        });
        pages++;
        listed += page.payments.length;
        before = page.next_before_block === null ? undefined : BigInt(page.next_before_block);
      } while (before !== undefined);
      // Four eth_getLogs a range (Paid, DepositForwarded, ReceiverPaid, ReceiverSplit): a read is one batch of them.
      const reads = (ranges + refused) / 4;
      if (listed !== Number(MONTH_PAYMENTS)) throw new Error(`the month's pages listed ${listed} payments of ${MONTH_PAYMENTS}`);
      monthRows.push(
        `| ${cap === null ? "none" : cap.toLocaleString("en")} | ${pages} | ${reads} | ${(reads / pages).toFixed(1)} | ${refused / 4} | ${other} |`,
      );
      console.log(
        `payments list, a month (13,000,000 blocks, ${MONTH_PAYMENTS} payments), range cap ${cap ?? "none"}: ${pages} pages, ${reads} reads (${refused / 4} refused), ${other} other calls`,
      );
    }
    sections.push(
      [
        `A month of one merchant's payments (${MONTH_PAYMENTS.toLocaleString("en")} pay settlements over 13,000,000 blocks, a month of Base at 0.2 s), every page of \`POST /v1/payments/list\` at limit 100 on a counting fake node; a read is one batch of four \`eth_getLogs\`, other calls are blocks and transactions:`,
        "",
        "| Range cap (blocks) | Pages | Reads | Reads a page | Refused reads | Other calls |",
        "|---:|---:|---:|---:|---:|---:|",
        ...monthRows,
      ].join("\n"),
    );
  }
}
