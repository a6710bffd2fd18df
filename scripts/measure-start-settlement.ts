// `npx tsx scripts/measure-start-settlement.ts` against a running `npm start` (API_URL, CHAIN_RPC_URL
// as the helper scripts read them): 20 plain transfers to payment addresses, 700 ms apart, from the
// funded test accounts. For each, the time from the transfer's broadcast to its settlement
// preconfirmed (the settlement's `Paid` in the pending block, its receipt served; read from the chain
// every 25 ms), and to verify answering `valid: true` on the transfer's hash (asked every 250 ms), with
// how many `valid: true` came before the settlement's block had the finality depth (must be none).
import { createPublicClient, encodeFunctionData, erc20Abi, http, type Hex } from "viem";
import { localAccount } from "../dev/localchain/harness.js";
import { PAID_EVENT } from "../src/chain/contracts/splitter.js";
import { paymentKeyOf } from "../src/payments/verify.js";

const COUNT = 20;
const port = process.env.PORT ?? "8787";
const api = process.env.API_URL ?? `http://127.0.0.1:${port}`;
const rpcUrl = process.env.CHAIN_RPC_URL ?? `http://127.0.0.1:${process.env.CHAIN_PORT ?? "8545"}`;
const client = createPublicClient({ transport: http(rpcUrl) });
const post = (path: string, body: unknown) =>
  fetch(`${api}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then(
    (r) => r.json() as Promise<unknown>,
  );
const capabilities = (await post("/v1/capabilities", {})) as { token: { address: Hex }; contracts: { Splitter: Hex }; finality: unknown };
const token = capabilities.token.address;
const splitter = capabilities.contracts.Splitter;
const merchant = localAccount(3).address;
const DEPTH = 2n; // npm start's finality: 2 confirmations
const results: Array<{ preconfirmed: number; valid: number; early: boolean }> = [];

await Promise.all(
  Array.from({ length: COUNT }, async (_, i) => {
    await new Promise((r) => setTimeout(r, i * 700));
    const from = localAccount(4 + (i % 12));
    const intent = (await post("/v1/payments", { recipient: merchant, amount: "1.5" })) as {
      intent: string;
      pay: { amount_units: string; reference: Hex; deposit_address: Hex };
    };
    const key = paymentKeyOf(token, { recipient: merchant, amountUnits: BigInt(intent.pay.amount_units), reference: intent.pay.reference });
    const raw = await from.signTransaction({
      chainId: 84532,
      type: "eip1559",
      nonce: await client.getTransactionCount({ address: from.address, blockTag: "pending" }),
      to: token,
      gas: 100_000n,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [intent.pay.deposit_address, BigInt(intent.pay.amount_units)] }),
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 10n ** 6n,
    });
    const start = performance.now();
    const hash = await client.sendRawTransaction({ serializedTransaction: raw });
    let preconfirmed = -1;
    while (preconfirmed < 0) {
      const [paid] = await client.getLogs({ address: splitter, event: PAID_EVENT, args: { paymentKey: key }, fromBlock: "pending", toBlock: "pending" });
      const receipt = paid?.transactionHash ? await client.getTransactionReceipt({ hash: paid.transactionHash }).catch(() => null) : null;
      if (receipt) preconfirmed = performance.now() - start;
      else await new Promise((r) => setTimeout(r, 25));
    }
    for (;;) {
      const verdict = (await post("/v1/payments/verify", { intent: intent.intent, tx_hash: hash })) as { valid: boolean; block_number?: string };
      if (verdict.valid) {
        const latest = await client.getBlockNumber({ cacheTime: 0 });
        results.push({ preconfirmed, valid: performance.now() - start, early: latest - BigInt(verdict.block_number!) < DEPTH });
        return;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }),
);
const q = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)]!;
const ms = (v: number) => `${v.toFixed(0)} ms`;
const pre = results.map((r) => r.preconfirmed);
const valid = results.map((r) => r.valid);
console.log(
  `${COUNT} plain transfers: settlement preconfirmed p50 ${ms(q(pre, 50))}, p95 ${ms(q(pre, 95))}; verify valid: true p50 ${ms(q(valid, 50))}, p95 ${ms(q(valid, 95))}; valid before the finality depth: ${results.filter((r) => r.early).length} of ${COUNT}`,
);
