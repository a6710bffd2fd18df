import type { Address, Hex } from "viem";
import type { Database } from "../store/database.js";

export interface LinkRecord {
  linkId: Hex;
  recipient: Address;
  amountUnits: bigint;
  notifyUrl: string | null;
  caller: string;
  expiresAt: number;
  closed: boolean;
  /** A subscription link's terms (seconds; end in unix seconds, 0 = none); null for a payment link. */
  subscription: { period: number; end: number } | null;
}

/** Links: kept so a link can mint payments, carry its notify_url, and be closed. */
export class LinkRecords {
  constructor(private readonly db: Pick<Database, "query">) {}

  async add(l: Omit<LinkRecord, "closed">): Promise<void> {
    await this.db.query(
      "INSERT INTO links (link_id, recipient, amount_units, notify_url, caller, expires_at, period, subscription_end) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
      [l.linkId, l.recipient, l.amountUnits.toString(), l.notifyUrl, l.caller, l.expiresAt, l.subscription?.period ?? null, l.subscription?.end ?? null],
    );
  }

  async find(linkId: string): Promise<LinkRecord | null> {
    const [r] = await this.db.query<{
      link_id: string;
      recipient: string;
      amount_units: string;
      notify_url: string | null;
      caller: string;
      expires_at: string | number;
      closed: boolean;
      period: string | number | null;
      subscription_end: string | number | null;
    }>("SELECT * FROM links WHERE link_id = $1", [linkId]);
    return r
      ? {
          linkId: r.link_id as Hex,
          recipient: r.recipient as Address,
          amountUnits: BigInt(r.amount_units),
          notifyUrl: r.notify_url,
          caller: r.caller,
          expiresAt: Number(r.expires_at),
          closed: r.closed,
          subscription: r.period === null ? null : { period: Number(r.period), end: Number(r.subscription_end ?? 0) },
        }
      : null;
  }

  async close(linkId: string): Promise<void> {
    await this.db.query("UPDATE links SET closed = true WHERE link_id = $1", [linkId]);
  }
}
