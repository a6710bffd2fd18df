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
}

/** Payment links: kept so a link can mint payments, carry its notify_url, and be closed. */
export class LinkRecords {
  constructor(private readonly db: Pick<Database, "query">) {}

  async add(l: Omit<LinkRecord, "closed">): Promise<void> {
    await this.db.query("INSERT INTO links (link_id, recipient, amount_units, notify_url, caller, expires_at) VALUES ($1, $2, $3, $4, $5, $6)", [
      l.linkId,
      l.recipient,
      l.amountUnits.toString(),
      l.notifyUrl,
      l.caller,
      l.expiresAt,
    ]);
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
        }
      : null;
  }

  async close(linkId: string): Promise<void> {
    await this.db.query("UPDATE links SET closed = true WHERE link_id = $1", [linkId]);
  }
}
