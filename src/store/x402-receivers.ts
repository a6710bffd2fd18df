import { getAddress, type Address, type Hex } from "viem";
import type { Database } from "./database.js";
import { takeRelayerNonce } from "./relayer-nonces.js";

/** A merchant's x402 receiver this service knows of. */
export interface X402ReceiverRecord {
  receiver: Address;
  recipient: Address;
  token: Address;
}

/** A relayer transaction to X402Receivers (a settlement or a split), recorded before it is broadcast. */
export interface X402Transaction {
  hash: Hex;
  relayer: Address;
  nonce: number;
  raw: Hex;
  sentAt: number;
}

/** A second registration of a receiver never funded renews it only if the last is older than this (ms): one write an hour at most. */
export const RECEIVER_RENEW_AFTER_MS = 3_600_000;

/** The bound on the receivers nobody funded yet that one caller holds at once. */
export interface UnfundedPlaces {
  /** The caller, as the rate limits tell callers apart (its IP address). */
  caller: string;
  /** How many receivers nobody funded yet the caller may hold. */
  max: number;
  /** How long such a receiver is kept after it was last registered (ms): older ones no longer count. */
  idleMs: number;
}

/** What registering a receiver did: recorded (or kept, when known), or refused until `freeAtMs`, when the caller's oldest place frees. */
export type ReceiverAdded = { added: true } | { added: false; freeAtMs: number };

/**
 * The receivers (one row per receiver: written by POST /v1/x402/receivers, never per request) and the
 * relayer's transactions to X402Receivers, with their nonces. A receiver is funded once at least the
 * smallest amount a split pays a fee on was seen arriving in it; until then the backstop does not look
 * at it, it takes one of its first caller's bounded places, and it is forgotten after an idle time
 * since it was last registered (registering it again restores it: it is derived).
 */
export class X402ReceiverStore {
  constructor(private readonly db: Pick<Database, "query" | "transaction">) {}

  /**
   * Records a receiver registered at `nowMs` by `places.caller`. A known receiver is kept whoever asks
   * (a second call writes nothing, except that it renews a receiver never funded, at most once per
   * {@link RECEIVER_RENEW_AFTER_MS}); a new one takes a place of its caller's, refused when the caller
   * already holds `places.max` receivers nobody funded (one caller's places counted at a time, across
   * instances).
   */
  async add(r: X402ReceiverRecord, nowMs: number, places: UnfundedPlaces): Promise<ReceiverAdded> {
    const upsert = (tx: Pick<Database, "query">) =>
      tx.query(
        `INSERT INTO x402_receivers (receiver, recipient, token, seen_at, caller) VALUES ($1, $2, $3, $4, $6)
          ON CONFLICT (receiver) DO UPDATE SET seen_at = EXCLUDED.seen_at
          WHERE x402_receivers.funded_at IS NULL AND x402_receivers.seen_at < EXCLUDED.seen_at - $5`,
        [r.receiver.toLowerCase(), r.recipient.toLowerCase(), r.token.toLowerCase(), nowMs, RECEIVER_RENEW_AFTER_MS, places.caller],
      );
    return this.db.transaction(async (tx) => {
      const known = await tx.query("SELECT 1 FROM x402_receivers WHERE receiver = $1", [r.receiver.toLowerCase()]);
      if (known.length > 0) {
        await upsert(tx);
        return { added: true };
      }
      await tx.query("SELECT pg_advisory_xact_lock(727275, hashtext($1))", [places.caller]);
      const [held] = await tx.query<{ n: string | number; oldest: string | number | null }>(
        "SELECT count(*) AS n, min(seen_at) AS oldest FROM x402_receivers WHERE caller = $1 AND funded_at IS NULL AND seen_at >= $2",
        [places.caller, nowMs - places.idleMs],
      );
      if (Number(held!.n) >= places.max) return { added: false, freeAtMs: Number(held!.oldest) + places.idleMs };
      await upsert(tx);
      return { added: true };
    });
  }

  /** Marks receivers funded at `nowMs` (enough funds seen arriving): from now on the backstop looks at them, they are never forgotten, and they free their caller's place. */
  async markFunded(receivers: Address[], nowMs: number): Promise<void> {
    if (receivers.length === 0) return;
    await this.db.query("UPDATE x402_receivers SET funded_at = $2 WHERE receiver = ANY($1::text[]) AND funded_at IS NULL", [
      receivers.map((r) => r.toLowerCase()),
      nowMs,
    ]);
  }

  /** Deletes up to `limit` receivers never funded and last registered before `beforeMs`; returns how many. */
  async dropIdle(beforeMs: number, limit: number): Promise<number> {
    const rows = await this.db.query(
      "DELETE FROM x402_receivers WHERE receiver IN (SELECT receiver FROM x402_receivers WHERE funded_at IS NULL AND seen_at < $1 ORDER BY seen_at LIMIT $2) RETURNING receiver",
      [beforeMs, limit],
    );
    return rows.length;
  }

  async find(receiver: Address): Promise<X402ReceiverRecord | null> {
    const [row] = await this.db.query<{ receiver: string; recipient: string; token: string }>(
      "SELECT receiver, recipient, token FROM x402_receivers WHERE receiver = $1",
      [receiver.toLowerCase()],
    );
    return row ? { receiver: getAddress(row.receiver), recipient: getAddress(row.recipient), token: getAddress(row.token) } : null;
  }

  /** Funded receivers in address order after `after` (a page of at most `limit`): the backstop's walk. */
  async page(after: Address | null, limit: number): Promise<X402ReceiverRecord[]> {
    const rows = await this.db.query<{ receiver: string; recipient: string; token: string }>(
      "SELECT receiver, recipient, token FROM x402_receivers WHERE receiver > $1 AND funded_at IS NOT NULL ORDER BY receiver LIMIT $2",
      [after?.toLowerCase() ?? "", limit],
    );
    return rows.map((r) => ({ receiver: getAddress(r.receiver), recipient: getAddress(r.recipient), token: getAddress(r.token) }));
  }

  /** Every receiver's address, funded or not (what the chain follower asks its node to push transfers to). */
  async addresses(): Promise<Address[]> {
    const rows = await this.db.query<{ receiver: string }>("SELECT receiver FROM x402_receivers");
    return rows.map((r) => r.receiver as Address);
  }

  /** The receivers among `addresses` (the recipients of a round's token transfers): one indexed query. */
  async among(addresses: Address[]): Promise<X402ReceiverRecord[]> {
    if (addresses.length === 0) return [];
    const rows = await this.db.query<{ receiver: string; recipient: string; token: string }>(
      "SELECT receiver, recipient, token FROM x402_receivers WHERE receiver = ANY($1::text[])",
      [addresses.map((a) => a.toLowerCase())],
    );
    return rows.map((r) => ({ receiver: getAddress(r.receiver), recipient: getAddress(r.recipient), token: getAddress(r.token) }));
  }

  /** Signs and records a relayer transaction with the relayer's next nonce, in one store transaction (no chain call inside). */
  async record(relayer: Address, chainPending: number, sentAt: number, sign: (nonce: number) => Promise<{ hash: Hex; raw: Hex }>): Promise<X402Transaction> {
    return this.db.transaction(async (tx) => {
      const nonce = await takeRelayerNonce(tx, relayer, chainPending);
      const signed = await sign(nonce);
      await tx.query("INSERT INTO x402_transactions (tx_hash, relayer, nonce, raw_tx, sent_at) VALUES ($1, $2, $3, $4, $5)", [
        signed.hash,
        relayer,
        nonce,
        signed.raw,
        sentAt,
      ]);
      return { hash: signed.hash, relayer, nonce, raw: signed.raw, sentAt };
    });
  }

  /** Transactions recorded and not yet seen mined or replaced, oldest first. */
  async sent(limit: number): Promise<X402Transaction[]> {
    const rows = await this.db.query<{ tx_hash: string; relayer: string; nonce: string | number; raw_tx: string; sent_at: string | number }>(
      "SELECT tx_hash, relayer, nonce, raw_tx, sent_at FROM x402_transactions WHERE status = 'sent' ORDER BY sent_at LIMIT $1",
      [limit],
    );
    return rows.map((r) => ({
      hash: r.tx_hash as Hex,
      relayer: r.relayer as Address,
      nonce: Number(r.nonce),
      raw: r.raw_tx as Hex,
      sentAt: Number(r.sent_at),
    }));
  }

  /**
   * Records a replacement of `previousHash` (same nonce, higher fee) before it is sent: the old row is
   * marked replaced and the new one followed in its place. False when the old one moved on meanwhile.
   */
  async replace(previousHash: Hex, next: { hash: Hex; raw: Hex }, sentAt: number): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const [old] = await tx.query<{ relayer: string; nonce: string | number }>(
        "UPDATE x402_transactions SET status = 'replaced' WHERE tx_hash = $1 AND status = 'sent' RETURNING relayer, nonce",
        [previousHash],
      );
      if (!old) return false;
      await tx.query("INSERT INTO x402_transactions (tx_hash, relayer, nonce, raw_tx, sent_at) VALUES ($1, $2, $3, $4, $5)", [
        next.hash,
        old.relayer,
        old.nonce,
        next.raw,
        sentAt,
      ]);
      return true;
    });
  }

  /** Whether the transaction `hash` (or a replacement of it: the same relayer and nonce) is still followed, unmined. */
  async isPending(hash: Hex): Promise<boolean> {
    const rows = await this.db.query(
      "SELECT 1 FROM x402_transactions t JOIN x402_transactions o ON o.relayer = t.relayer AND o.nonce = t.nonce WHERE t.tx_hash = $1 AND o.status = 'sent'",
      [hash],
    );
    return rows.length > 0;
  }

  /** A followed transaction is done: mined, or its nonce used by another transaction. */
  async markDone(hash: Hex, status: "mined" | "dropped"): Promise<void> {
    await this.db.query("UPDATE x402_transactions SET status = $2 WHERE tx_hash = $1", [hash, status]);
  }
}
