// `npm run flood`: against a started stack (`npm start` on the embedded local chain), how long a plain
// transfer to a payment address takes to settle and verify valid, before and after a flood of
// anonymous intents: FLOOD_CREATES (10,000) `POST /v1/payments` and FLOOD_RESOLVES (10,000) resolves of
// one payment link, each resolve minting a payment address. After the flood, a transfer to the newest
// intent's address and one to the oldest's (created before the flood) are timed together.
//   API_URL and CHAIN_RPC_URL as the other helper scripts (scripts/lib/local-stack.ts: PORT and
//   CHAIN_PORT find a stack started with them), FLOOD_IN_FLIGHT (32).
// The stack's per-IP limits must let one machine make the flood: start it with
// RATE_LIMIT_PER_MINUTE=1000000 (docs/configuration.md).
import { createPublicClient, createWalletClient, erc20Abi, http, type Address, type Hex } from "viem";
import { LOCAL_ROLES, localAccount } from "../dev/localchain/harness.js";
import { chainFor } from "../src/chain/client.js";
import { API_URL, CHAIN_RPC_URL, fail } from "./lib/local-stack.js";

const API = API_URL;
const CHAIN = CHAIN_RPC_URL;
const CREATES = Number(process.env.FLOOD_CREATES ?? 10_000);
const RESOLVES = Number(process.env.FLOOD_RESOLVES ?? 10_000);
const IN_FLIGHT = Number(process.env.FLOOD_IN_FLIGHT ?? 32);

/** Two funded buyers, so the two transfers timed together do not share a nonce. */
const buyers = [localAccount(LOCAL_ROLES.firstUser), localAccount(LOCAL_ROLES.firstUser + 3)] as const;
const merchant = localAccount(LOCAL_ROLES.firstUser + 1).address;

/** POSTs `body`; a 429 or 503 (the node busy) is tried again after its `retry_after`, as a client should. */
async function post<T>(path: string, body: unknown): Promise<T> {
  for (;;) {
    const res = await fetch(`${API}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const json = (await res.json()) as T & { retry_after?: number };
    if (res.status === 429 || res.status === 503) {
      retried++;
      await new Promise((r) => setTimeout(r, (json.retry_after ?? 1) * 1000));
      continue;
    }
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }
}
let retried = 0;

interface Created {
  intent: string;
  pay: { deposit_address: Address; token: Address; amount_units: string; chain_id: number };
}
const create = () => post<Created>("/v1/payments", { recipient: merchant, amount: "1" });

await fetch(`${API}/health`).catch(() => fail(`nothing answers at ${API}: start the stack (npm start), or set API_URL / PORT`));
const first = await create();
const chain = chainFor(first.pay.chain_id, CHAIN);
const client = createPublicClient({ chain, transport: http(CHAIN) });
const wallets = buyers.map((account) => createWalletClient({ account, chain, transport: http(CHAIN) }));

/** A plain transfer of the intent's amount to its payment address; seconds from the transfer mined to verify answering valid. */
async function timeToValid(c: Created, from = 0): Promise<number> {
  const hash = await wallets[from]!.writeContract({
    address: c.pay.token,
    abi: erc20Abi,
    functionName: "transfer",
    args: [c.pay.deposit_address, BigInt(c.pay.amount_units)],
  });
  await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  const t0 = performance.now();
  for (;;) {
    const answer = await post<{ valid: boolean }>("/v1/payments/verify", { intent: c.intent, tx_hash: hash as Hex });
    if (answer.valid) return (performance.now() - t0) / 1000;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Runs `count` calls of `one`, `IN_FLIGHT` at a time. */
async function many(count: number, one: () => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next++ < count) await one();
    }),
  );
}

console.log(`stack at ${API}, chain at ${CHAIN}`);
const before = await timeToValid(first);
console.log(`before the flood: settled and valid ${before.toFixed(1)} s after the transfer was mined`);

const oldest = await create();
const link = await post<{ link: string }>("/v1/links", { recipient: merchant, amount: "1" });
const started = performance.now();
await Promise.all([many(CREATES, create), many(RESOLVES, () => post("/v1/payments/resolve", { intent: link.link }))]);
const floodSeconds = (performance.now() - started) / 1000;
console.log(
  `flood: ${CREATES.toLocaleString("en")} creates and ${RESOLVES.toLocaleString("en")} link resolves in ${floodSeconds.toFixed(0)} s (${retried} answers 429/503 retried after retry_after)`,
);
const newest = await create();

const [toNewest, toOldest] = await Promise.all([timeToValid(newest, 0), timeToValid(oldest, 1)]);
console.log(`after the flood: newest ${toNewest.toFixed(1)} s, oldest ${toOldest.toFixed(1)} s`);
console.log("");
console.log("| Transfer to | Mined → settled and valid | vs before the flood |");
console.log("|---|---:|---:|");
console.log(`| an intent's address, before the flood | ${before.toFixed(1)} s | |`);
console.log(
  `| the newest intent's, after ${(CREATES + RESOLVES).toLocaleString("en")} anonymous intents | ${toNewest.toFixed(1)} s | ${(toNewest - before >= 0 ? "+" : "") + (toNewest - before).toFixed(1)} s |`,
);
console.log(
  `| the oldest intent's (created before the flood), same time | ${toOldest.toFixed(1)} s | ${(toOldest - before >= 0 ? "+" : "") + (toOldest - before).toFixed(1)} s |`,
);
if (Math.max(toNewest, toOldest) > before + 6) {
  console.error("slower than 6 s past the figure before the flood");
  process.exitCode = 1;
}
