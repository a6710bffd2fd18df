import type { Address, Hex } from "viem";
import type { Database } from "./database.js";
import { takeRelayerNonce } from "./relayer-nonces.js";
import type { X402Transaction } from "./x402-receivers.js";

/** What the holds' operator sends to the escrow. */
export type HoldOperation = "authorize" | "capture" | "charge" | "void";

/** A relayer transaction to the escrow, recorded before it is broadcast. */
export interface HoldTransaction extends X402Transaction {
  /** The key a hold has one call in flight under: the payment's hash, or for an authorize or charge the terms' payer-agnostic hash (HoldOperator). */
  paymentHash: Hex;
  operation: HoldOperation;
}

/** Recording refused: another operator call for the same hold is still in flight. */
export interface HoldBusy {
  busy: { hash: Hex; operation: HoldOperation; sentAt: number };
}

type Row = { tx_hash: string; relayer: string; nonce: string | number; raw_tx: string; sent_at: string | number; payment_hash: string; operation: string };
const COLUMNS = "tx_hash, relayer, nonce, raw_tx, sent_at, payment_hash, operation";
const toTransaction = (r: Row): HoldTransaction => ({
  hash: r.tx_hash as Hex,
  relayer: r.relayer as Address,
  nonce: Number(r.nonce),
  raw: r.raw_tx as Hex,
  sentAt: Number(r.sent_at),
  paymentHash: r.payment_hash as Hex,
  operation: r.operation as HoldOperation,
});

/**
 * The relayer's transactions to the escrow, one row per operator call (written by a merchant's
 * capture or void, or a buyer's authorization, never by a read). A hold has at most one in flight:
 * a second call while one is unmined is refused before anything is signed, so two captures racing
 * never both pay gas for one of them to revert.
 */
export class HoldTransactionStore {
  constructor(private readonly db: Pick<Database, "query" | "transaction">) {}

  /**
   * Signs and records an operator call with the relayer's next nonce, in one store transaction (no
   * chain call inside); refused with the call in flight when the hold already has one.
   */
  async record(
    call: { relayer: Address; paymentHash: Hex; operation: HoldOperation },
    chainPending: number,
    sentAt: number,
    sign: (nonce: number) => Promise<{ hash: Hex; raw: Hex }>,
  ): Promise<HoldTransaction | HoldBusy> {
    return this.db.transaction(async (tx) => {
      const paymentHash = call.paymentHash.toLowerCase() as Hex;
      await tx.query("SELECT pg_advisory_xact_lock(727276, hashtext($1))", [paymentHash]);
      const [inFlight] = await tx.query<Row>(`SELECT ${COLUMNS} FROM hold_transactions WHERE payment_hash = $1 AND status = 'sent' LIMIT 1`, [paymentHash]);
      if (inFlight) {
        const t = toTransaction(inFlight);
        return { busy: { hash: t.hash, operation: t.operation, sentAt: t.sentAt } };
      }
      const nonce = await takeRelayerNonce(tx, call.relayer, chainPending);
      const signed = await sign(nonce);
      await tx.query(`INSERT INTO hold_transactions (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
        signed.hash,
        call.relayer,
        nonce,
        signed.raw,
        sentAt,
        paymentHash,
        call.operation,
      ]);
      return { hash: signed.hash, relayer: call.relayer, nonce, raw: signed.raw, sentAt, paymentHash, operation: call.operation };
    });
  }

  /** Transactions recorded and not yet seen mined or replaced, oldest first. */
  async sent(limit: number): Promise<HoldTransaction[]> {
    const rows = await this.db.query<Row>(`SELECT ${COLUMNS} FROM hold_transactions WHERE status = 'sent' ORDER BY sent_at LIMIT $1`, [limit]);
    return rows.map(toTransaction);
  }

  /** The hold's operator call in flight, if any. */
  async inFlight(paymentHash: Hex): Promise<HoldTransaction | null> {
    const [row] = await this.db.query<Row>(`SELECT ${COLUMNS} FROM hold_transactions WHERE payment_hash = $1 AND status = 'sent' LIMIT 1`, [
      paymentHash.toLowerCase(),
    ]);
    return row ? toTransaction(row) : null;
  }

  /** Records a replacement of `previousHash` (same nonce, higher fee) before it is sent; false when the old one moved on meanwhile. */
  async replace(previousHash: Hex, next: { hash: Hex; raw: Hex }, sentAt: number): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const [old] = await tx.query<Row>(`UPDATE hold_transactions SET status = 'replaced' WHERE tx_hash = $1 AND status = 'sent' RETURNING ${COLUMNS}`, [
        previousHash,
      ]);
      if (!old) return false;
      await tx.query(`INSERT INTO hold_transactions (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
        next.hash,
        old.relayer,
        old.nonce,
        next.raw,
        sentAt,
        old.payment_hash,
        old.operation,
      ]);
      return true;
    });
  }

  /**
   * The calls recorded under any of `keys` (a hold's terms hash and payment hash) that are or may be
   * on chain (sent, or mined; not replaced or dropped), oldest first: where a hold's steps are.
   */
  async calls(keys: Hex[]): Promise<HoldTransaction[]> {
    if (keys.length === 0) return [];
    const rows = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM hold_transactions WHERE payment_hash = ANY($1) AND status IN ('sent', 'mined') ORDER BY sent_at`,
      [keys.map((k) => k.toLowerCase())],
    );
    return rows.map(toTransaction);
  }

  /** A followed transaction is done: mined, or its nonce used by another transaction. */
  async markDone(hash: Hex, status: "mined" | "dropped"): Promise<void> {
    await this.db.query("UPDATE hold_transactions SET status = $2 WHERE tx_hash = $1", [hash, status]);
  }
}
