import { getAddress, type Address, type Hex } from "viem";
import type { Database } from "./database.js";
import { takeRelayerNonce } from "./relayer-nonces.js";

/** A payment address the service watches, to settle its payment when the amount has arrived. */
export interface DepositWatch {
  depositAddress: Address;
  recipient: Address;
  amountUnits: bigint;
  reference: Hex;
  /** Unix seconds: the last moment the address is looked at. */
  watchUntil: number;
  status: "open" | "sent" | "settled";
  /** The settlement transaction sent (status `sent`): the latest, after a fee replacement the replacement. */
  txHash: Hex | null;
  rawTx: Hex | null;
  /** Every hash the settlement was sent under, oldest first (same nonce, same call, rising fees): any of them may be mined. */
  txHashes: Hex[];
  /** The relayer that sent it and the nonce it holds. */
  relayer: Address | null;
  nonce: number | null;
  /** Unix milliseconds of the settlement's send. */
  sentAt: number | null;
}

interface Row {
  deposit_address: string;
  recipient: string;
  amount_units: string | number;
  reference: string;
  watch_until: string | number;
  status: DepositWatch["status"];
  tx_hash: string | null;
  raw_tx: string | null;
  tx_hashes: string[] | null;
  relayer: string | null;
  nonce: string | number | null;
  sent_at: string | number | null;
}

const fromRow = (r: Row): DepositWatch => ({
  depositAddress: getAddress(r.deposit_address),
  recipient: r.recipient as Address,
  amountUnits: BigInt(r.amount_units),
  reference: r.reference as Hex,
  watchUntil: Number(r.watch_until),
  status: r.status,
  txHash: r.tx_hash as Hex | null,
  rawTx: r.raw_tx as Hex | null,
  txHashes: (r.tx_hashes?.length ? r.tx_hashes : r.tx_hash ? [r.tx_hash] : []) as Hex[],
  relayer: r.relayer === null ? null : getAddress(r.relayer),
  nonce: r.nonce === null ? null : Number(r.nonce),
  sentAt: r.sent_at === null ? null : Number(r.sent_at),
});

const COLUMNS = "deposit_address, recipient, amount_units, reference, watch_until, status, tx_hash, raw_tx, tx_hashes, relayer, nonce, sent_at";

/** The payment addresses being watched (deposit-settler.ts settles them). */
export class DepositWatches {
  constructor(private readonly db: Pick<Database, "query" | "transaction">) {}

  /** Starts watching a payment's address (once: the address is the payment's). */
  async add(w: { depositAddress: Address; recipient: Address; amountUnits: bigint; reference: Hex; watchUntil: number }, nowMs: number): Promise<void> {
    await this.db.query(
      "INSERT INTO deposit_watches (deposit_address, recipient, amount_units, reference, watch_until, next_check_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (deposit_address) DO NOTHING",
      [w.depositAddress.toLowerCase(), w.recipient, w.amountUnits.toString(), w.reference, w.watchUntil, nowMs],
    );
  }

  async find(depositAddress: Address): Promise<DepositWatch | null> {
    const [row] = await this.db.query<Row>(`SELECT ${COLUMNS} FROM deposit_watches WHERE deposit_address = $1`, [depositAddress.toLowerCase()]);
    return row ? fromRow(row) : null;
  }

  /** Open watches due for a look (`next_check_at` passed, the watch not over), the longest waiting first. */
  async due(nowMs: number, limit: number): Promise<DepositWatch[]> {
    const rows = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM deposit_watches WHERE status = 'open' AND next_check_at <= $1 AND watch_until >= $2 ORDER BY next_check_at LIMIT $3`,
      [nowMs, Math.floor(nowMs / 1000), limit],
    );
    return rows.map(fromRow);
  }

  /** Watches whose settlement was sent, to follow. */
  async sent(limit: number): Promise<DepositWatch[]> {
    return (await this.db.query<Row>(`SELECT ${COLUMNS} FROM deposit_watches WHERE status = 'sent' ORDER BY sent_at LIMIT $1`, [limit])).map(fromRow);
  }

  /** Looks at these open addresses again no sooner than `atMs`. */
  async postpone(addresses: Address[], atMs: number): Promise<void> {
    if (addresses.length === 0) return;
    await this.db.query("UPDATE deposit_watches SET next_check_at = $2 WHERE deposit_address = ANY($1::text[]) AND status = 'open'", [
      addresses.map((a) => a.toLowerCase()),
      atMs,
    ]);
  }

  /**
   * Claims an open watch and records its settlement transaction with the relayer's next nonce, in one
   * store transaction (no chain call inside): null when another caller (another instance) claimed it.
   */
  async recordSettlement(
    depositAddress: Address,
    a: { relayer: Hex; sentAt: number },
    chainPending: number,
    sign: (nonce: number) => Promise<{ hash: Hex; raw: Hex }>,
  ): Promise<{ hash: Hex; raw: Hex; nonce: number } | null> {
    return this.db.transaction(async (tx) => {
      const claimed = await tx.query("UPDATE deposit_watches SET status = 'sent' WHERE deposit_address = $1 AND status = 'open' RETURNING deposit_address", [
        depositAddress.toLowerCase(),
      ]);
      if (claimed.length === 0) return null;
      const nonce = await takeRelayerNonce(tx, a.relayer, chainPending);
      const signed = await sign(nonce);
      await tx.query(
        "UPDATE deposit_watches SET tx_hash = $2, raw_tx = $3, tx_hashes = ARRAY[$2::text], relayer = $4, nonce = $5, sent_at = $6 WHERE deposit_address = $1",
        [depositAddress.toLowerCase(), signed.hash, signed.raw, a.relayer, nonce, a.sentAt],
      );
      return { ...signed, nonce };
    });
  }

  /**
   * Records a replacement of the settlement `previousHash` (same nonce, higher fee) before it is sent,
   * its hash added to the ones followed; false when it moved on meanwhile.
   */
  async replace(depositAddress: Address, previousHash: Hex, next: { hash: Hex; raw: Hex }, sentAt: number): Promise<boolean> {
    const rows = await this.db.query(
      "UPDATE deposit_watches SET tx_hash = $3, raw_tx = $4, tx_hashes = array_append(COALESCE(tx_hashes, ARRAY[tx_hash]), $3::text), sent_at = $5 WHERE deposit_address = $1 AND tx_hash = $2 AND status = 'sent' RETURNING deposit_address",
      [depositAddress.toLowerCase(), previousHash, next.hash, next.raw, sentAt],
    );
    return rows.length === 1;
  }

  /** The payment settled (by this service or anyone): nothing more to watch. */
  async markSettled(depositAddress: Address): Promise<void> {
    await this.db.query("UPDATE deposit_watches SET status = 'settled' WHERE deposit_address = $1", [depositAddress.toLowerCase()]);
  }

  /**
   * A settlement that failed or vanished without settling (reverted, or its nonce used by another
   * transaction): open again, looked at from `atMs`. `txHash` is its latest hash, so a replacement
   * recorded meanwhile keeps the watch.
   */
  async reopen(depositAddress: Address, txHash: Hex, atMs: number): Promise<void> {
    await this.db.query(
      "UPDATE deposit_watches SET status = 'open', tx_hash = NULL, raw_tx = NULL, tx_hashes = NULL, relayer = NULL, nonce = NULL, sent_at = NULL, next_check_at = $3 WHERE deposit_address = $1 AND tx_hash = $2",
      [depositAddress.toLowerCase(), txHash, atMs],
    );
  }

  /**
   * Forgets watches past their end (a week after the intent's expiry), settled or open. A settled
   * watch stays until then: it is the payment address's record for the x402 facilitator (a settle asking after a front-runner's settlement became final), read by key
   * and never scanned (the settler reads open and sent watches only).
   */
  async prune(nowMs: number): Promise<number> {
    const rows = await this.db.query("DELETE FROM deposit_watches WHERE status <> 'sent' AND watch_until < $1 RETURNING deposit_address", [
      Math.floor(nowMs / 1000),
    ]);
    return rows.length;
  }
}
