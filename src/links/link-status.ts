import type { Hex } from "viem";
import { DomainError } from "../errors.js";
import type { LinkRecord, LinkRecords } from "./records.js";

/**
 * Whether a link is open: recorded, not closed, not expired. Payments ask it before minting through
 * a link (their `linkStatus` port) and links before every resolve, so both apply one rule; it needs
 * only the link table, so it is built before payments and links alike.
 */
export class LinkStatus {
  constructor(
    private readonly records: Pick<LinkRecords, "find">,
    private readonly now: () => number,
  ) {}

  /** The link's record; LINK_CLOSED when there is none or it is closed or expired. */
  async openRecord(linkId: Hex): Promise<LinkRecord> {
    const record = await this.records.find(linkId);
    if (!record || record.closed || Math.floor(this.now() / 1000) >= record.expiresAt) throw new DomainError("LINK_CLOSED");
    return record;
  }

  async checkOpen(linkId: Hex): Promise<void> {
    await this.openRecord(linkId);
  }
}
