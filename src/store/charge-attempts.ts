import type { Hex } from "viem";
import type { Database } from "./database.js";

/** A relayer charge transaction recorded for one subscription period. */
export interface ChargeAttempt {
  subscriptionId: Hex;
  periodIndex: bigint;
  txHash: Hex;
  rawTx: Hex;
  relayer: Hex;
  nonce: number;
  status: "sent" | "reported";
}

interface Row {
  subscription_id: string;
  period_index: string | number | bigint;
  tx_hash: string;
  raw_tx: string;
  relayer: string;
  nonce: string | number | bigint;
  status: "sent" | "reported";
}

const fromRow = (r: Row): ChargeAttempt => ({
  subscriptionId: r.subscription_id as Hex,
  periodIndex: BigInt(r.period_index),
  txHash: r.tx_hash as Hex,
  rawTx: r.raw_tx as Hex,
  relayer: r.relayer as Hex,
  nonce: Number(r.nonce),
  status: r.status,
});

export class ChargeAttempts {
  constructor(private readonly db: Database) {}

  async find(subscriptionId: Hex, periodIndex: bigint): Promise<ChargeAttempt | null> {
    const rows = await this.db.query<Row>("SELECT * FROM charge_attempts WHERE subscription_id = $1 AND period_index = $2", [subscriptionId, periodIndex.toString()]);
    return rows[0] ? fromRow(rows[0]) : null;
  }

  /** Records an attempt; false when one is already recorded for this period (another caller won). */
  async insert(a: Omit<ChargeAttempt, "status">): Promise<boolean> {
    const rows = await this.db.query<{ tx_hash: string }>(
      "INSERT INTO charge_attempts (subscription_id, period_index, tx_hash, raw_tx, relayer, nonce, status) VALUES ($1, $2, $3, $4, $5, $6, 'sent') ON CONFLICT DO NOTHING RETURNING tx_hash",
      [a.subscriptionId, a.periodIndex.toString(), a.txHash, a.rawTx, a.relayer, a.nonce],
    );
    return rows.length === 1;
  }

  async markReported(subscriptionId: Hex, periodIndex: bigint): Promise<void> {
    await this.db.query("UPDATE charge_attempts SET status = 'reported' WHERE subscription_id = $1 AND period_index = $2", [subscriptionId, periodIndex.toString()]);
  }

  /** Forgets an attempt whose transaction is gone from the chain (reorged out and dropped) or failed. */
  async remove(subscriptionId: Hex, periodIndex: bigint, txHash: Hex): Promise<void> {
    await this.db.query("DELETE FROM charge_attempts WHERE subscription_id = $1 AND period_index = $2 AND tx_hash = $3", [subscriptionId, periodIndex.toString(), txHash]);
  }
}
