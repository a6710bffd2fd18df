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

/** What a new watch is made of (payments.ts, at create and at a link's resolve). */
export interface NewDepositWatch {
  depositAddress: Address;
  recipient: Address;
  amountUnits: bigint;
  reference: Hex;
  watchUntil: number;
}

/** Most watches one grouped INSERT carries. */
const ADD_BATCH_MAX = 500;
/**
 * Grouped INSERTs on their way at once: the store writes one while the next gather, so a create
 * waits about one small group's write, not a large one's. Measured on the create benchmark: small
 * groups, several on their way (2 and 5) beat large groups one at a time.
 */
export const ADD_IN_FLIGHT = 5;
/** A group this large is sent at once, not at the end of the event loop's turn. */
const ADD_SEND_AT = 2;

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX_WORD = /^0x[0-9a-fA-F]{64}$/;

/**
 * A new watch as a row of SQL literals. Every value is first checked against its exact shape (hex
 * addresses and words, a non-negative integer amount, a safe integer time), so nothing but hex and
 * decimal digits is ever written into the statement; anything else throws.
 */
function rowLiterals(w: NewDepositWatch): string {
  if (!HEX_ADDRESS.test(w.depositAddress) || !HEX_ADDRESS.test(w.recipient) || !HEX_WORD.test(w.reference))
    throw new Error(`not a watch: ${w.depositAddress} ${w.recipient} ${w.reference}`);
  if (typeof w.amountUnits !== "bigint" || w.amountUnits < 0n || !Number.isSafeInteger(w.watchUntil)) throw new Error("not a watch: amount or time");
  return `('${w.depositAddress.toLowerCase()}', '${w.recipient}', ${w.amountUnits}, '${w.reference}', ${w.watchUntil})`;
}

const COLUMNS = "deposit_address, recipient, amount_units, reference, watch_until, status, tx_hash, raw_tx, tx_hashes, relayer, nonce, sent_at";

/** The payment addresses being watched (deposit-settler.ts settles them). */
export class DepositWatches {
  constructor(private readonly db: Pick<Database, "query" | "exec" | "transaction">) {}

  /**
   * Starts watching a payment's address (once: the address is the payment's): a row, no chain call.
   * Resolves once the row is committed. Concurrent calls are grouped into multi-row INSERTs: the
   * calls of one turn of the event loop go together (or sooner, once ADD_SEND_AT wait), up to
   * ADD_IN_FLIGHT groups on their way at once, so a burst of creates costs a few statements, not one
   * each, the store writes one group while the next is gathered, and no caller is answered before its
   * row is stored. The statement carries its values as literals (rowLiterals checks each): a statement
   * without parameters costs PGlite about a third of a parameterized one.
   */
  add(w: NewDepositWatch): Promise<void> {
    let literals: string;
    try {
      literals = rowLiterals(w);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      this.#pending.push({ literals, resolve, reject });
      if (this.#inFlight >= ADD_IN_FLIGHT) return; // the next to finish sends what waits
      if (this.#pending.length >= ADD_SEND_AT) return void this.#send();
      if (this.#scheduled) return;
      this.#scheduled = true;
      // After the I/O waiting now (other requests already received) has run: they join this INSERT.
      setImmediate(() => {
        this.#scheduled = false;
        if (this.#inFlight < ADD_IN_FLIGHT) void this.#send();
      });
    });
  }

  /** Told after new watches are stored (the chain follower then asks its node to push their transfers too). */
  onAdded: (() => void) | null = null;

  #pending: Array<{ literals: string; resolve: () => void; reject: (e: unknown) => void }> = [];
  #scheduled = false;
  #inFlight = 0;

  async #send(): Promise<void> {
    const group = this.#pending.splice(0, ADD_BATCH_MAX);
    if (group.length === 0) return;
    this.#inFlight++;
    try {
      await this.db.exec(
        `INSERT INTO deposit_watches (deposit_address, recipient, amount_units, reference, watch_until) VALUES ${group.map((p) => p.literals).join(", ")} ON CONFLICT (deposit_address) DO NOTHING`,
      );
      for (const p of group) p.resolve();
      this.onAdded?.();
    } catch (error) {
      for (const p of group) p.reject(error);
    } finally {
      this.#inFlight--;
      if (this.#pending.length > 0) void this.#send();
    }
  }

  async find(depositAddress: Address): Promise<DepositWatch | null> {
    const [row] = await this.db.query<Row>(`SELECT ${COLUMNS} FROM deposit_watches WHERE deposit_address = $1`, [depositAddress.toLowerCase()]);
    return row ? fromRow(row) : null;
  }

  /**
   * Open watches owed a retry (a deposit whose settlement could not be sent, or whose settlement
   * reverted) whose time has come, the longest waiting first. A watch nothing is owed to has no
   * `next_check_at` and is never read here: arrivals are found from the token's Transfer logs.
   */
  async due(nowMs: number, limit: number): Promise<DepositWatch[]> {
    const rows = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM deposit_watches WHERE status = 'open' AND next_check_at IS NOT NULL AND next_check_at <= $1 AND watch_until >= $2 ORDER BY next_check_at LIMIT $3`,
      [nowMs, Math.floor(nowMs / 1000), limit],
    );
    return rows.map(fromRow);
  }

  /** Every open, unexpired payment address (what the chain follower asks its node to push transfers to). */
  async openAddresses(nowMs: number): Promise<Address[]> {
    const rows = await this.db.query<{ deposit_address: string }>("SELECT deposit_address FROM deposit_watches WHERE status = 'open' AND watch_until >= $1", [
      Math.floor(nowMs / 1000),
    ]);
    return rows.map((r) => r.deposit_address as Address);
  }

  /** The open, unexpired watches of these addresses (the recipients of a block range's transfers): one primary-key lookup. */
  async openAmong(addresses: Address[], nowMs: number): Promise<DepositWatch[]> {
    if (addresses.length === 0) return [];
    const rows = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM deposit_watches WHERE deposit_address = ANY($1::text[]) AND status = 'open' AND watch_until >= $2`,
      [addresses.map((a) => a.toLowerCase()), Math.floor(nowMs / 1000)],
    );
    return rows.map(fromRow);
  }

  /**
   * A few open, unexpired watches after `after` in address order (from the first when null): the
   * backstop's slow sweep, walking the primary key, so it needs no index of its own.
   */
  async openAfter(after: Address | null, nowMs: number, limit: number): Promise<DepositWatch[]> {
    const rows = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM deposit_watches WHERE deposit_address > $1 AND status = 'open' AND watch_until >= $2 ORDER BY deposit_address LIMIT $3`,
      [after?.toLowerCase() ?? "", Math.floor(nowMs / 1000), limit],
    );
    return rows.map(fromRow);
  }

  /** Watches whose settlement was sent, to follow. */
  async sent(limit: number): Promise<DepositWatch[]> {
    return (await this.db.query<Row>(`SELECT ${COLUMNS} FROM deposit_watches WHERE status = 'sent' ORDER BY sent_at LIMIT $1`, [limit])).map(fromRow);
  }

  /** Retries these open addresses no sooner than `atMs`; null: no retry owed (the next transfer to one is what looks again). */
  async postpone(addresses: Address[], atMs: number | null): Promise<void> {
    if (addresses.length === 0) return;
    await this.db.query("UPDATE deposit_watches SET next_check_at = $2 WHERE deposit_address = ANY($1::text[]) AND status = 'open'", [
      addresses.map((a) => a.toLowerCase()),
      atMs,
    ]);
  }

  /**
   * The payments of these payment addresses are settled and final (their `Paid` at or below the
   * finality head, by any path: pay, permit, EIP-3009, x402, anyone's settleDeposit): their open
   * watches end. A watch with a settlement of ours out stays for the settler to follow, so its nonce
   * is never left behind. Returns how many ended.
   */
  async settle(depositAddresses: Address[]): Promise<number> {
    if (depositAddresses.length === 0) return 0;
    const rows = await this.db.query(
      "UPDATE deposit_watches SET status = 'settled', next_check_at = NULL WHERE deposit_address = ANY($1::text[]) AND status = 'open' RETURNING deposit_address",
      [depositAddresses.map((a) => a.toLowerCase())],
    );
    return rows.length;
  }

  /** The last block a log read of the settler's covered (`transfers` or `paid`), shared by every instance. */
  async scanned(name: "transfers" | "paid"): Promise<bigint | null> {
    const [row] = await this.db.query<{ block_number: string | number }>("SELECT block_number FROM deposit_scan WHERE name = $1", [name]);
    return row ? BigInt(row.block_number) : null;
  }

  async setScanned(name: "transfers" | "paid", block: bigint): Promise<void> {
    await this.db.query("INSERT INTO deposit_scan (name, block_number) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET block_number = EXCLUDED.block_number", [
      name,
      block.toString(),
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
