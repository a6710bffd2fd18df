import type { Hex } from "viem";
import type { Database } from "./database.js";

/**
 * The relayer's next nonce, inside a store transaction (its row locked until the transaction ends),
 * for every transaction the relayer key sends (charges, deposit settlements, x402 receivers' transactions, the holds' operator calls): the store's next
 * one, or the chain's pending count when that is higher, or a hole below it (a nonce the chain has
 * not used and no recorded transaction holds: one dropped for good).
 */
export async function takeRelayerNonce(tx: Pick<Database, "query">, relayer: Hex, chainPending: number): Promise<number> {
  await tx.query("INSERT INTO relayer_nonces (relayer, next_nonce) VALUES ($1, $2) ON CONFLICT (relayer) DO NOTHING", [relayer, chainPending]);
  const [row] = await tx.query<{ next_nonce: string | number }>("SELECT next_nonce FROM relayer_nonces WHERE relayer = $1 FOR UPDATE", [relayer]);
  const next = Number(row!.next_nonce);
  let nonce = Math.max(next, chainPending);
  if (chainPending < next) {
    const held = await tx.query(
      "SELECT 1 FROM charge_attempts WHERE relayer = $1 AND nonce = $2 UNION ALL SELECT 1 FROM deposit_watches WHERE relayer = $1 AND nonce = $2 UNION ALL SELECT 1 FROM x402_transactions WHERE relayer = $1 AND nonce = $2 AND status = 'sent' UNION ALL SELECT 1 FROM hold_transactions WHERE relayer = $1 AND nonce = $2 AND status = 'sent'",
      [relayer, chainPending],
    );
    if (held.length === 0) nonce = chainPending; // a hole: reuse it, or every later nonce waits behind it
  }
  await tx.query("UPDATE relayer_nonces SET next_nonce = $2 WHERE relayer = $1", [relayer, Math.max(next, nonce + 1)]);
  return nonce;
}
