import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The committed gas figures, measured on the local chain against Circle's USDC (`npm run gas -- --update`). */
const GAS_SNAPSHOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../snapshots/gas.json");

/** The figure the indicative network fee uses: a payer's first charge (an EOA's signature checked, slots created). */
export const CHARGE_GAS_FIGURE = "first charge (EOA)";

/**
 * The gas of one charge as measured, not guessed: `snapshots/gas.json`'s first charge (the
 * `Gas` test keeps that file equal to what the contracts cost on real USDC).
 */
export function measuredChargeGas(path = GAS_SNAPSHOT, figure = CHARGE_GAS_FIGURE): bigint {
  const figures = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  const gas = figures[figure];
  if (typeof gas !== "number" || !Number.isInteger(gas) || gas <= 0) throw new Error(`${path} has no "${figure}" figure: run \`npm run gas -- --update\``);
  return BigInt(gas);
}

/**
 * The figure a renewal's gas limit comes from: the dearest renewal measured (one that opens a slot
 * of charge records). A renewal checks no signature, so its gas depends on no account's code: it is
 * simulated (one eth_call, for its refusals) rather than estimated (a search of many runs).
 */
export const RENEWAL_GAS_FIGURE = "later charge (new slot)";

/**
 * What a renewal adds to a chargeBatch, measured in batches of 20 on real USDC (snapshots/gas.json):
 * a renewal whose payer and merchant an earlier renewal of the batch already touched (`warm`), and
 * what it adds when its payer (its balance and allowance slots read cold) or its merchant (its
 * balance slot) is new to the batch, or when its period opens a slot of charge records (one in six).
 * Each figure is the batch's gas over its renewals, the base cost and the calldata included.
 */
export interface BatchedRenewalGas {
  warm: bigint;
  newPayer: bigint;
  newRecipient: bigint;
  newSlot: bigint;
}

export const BATCHED_RENEWAL_FIGURES = {
  /** 20 payers, each paying its own merchant: nothing warm. */
  cold: "renewal in a batch of 20",
  /** One payer paying 20 merchants. */
  onePayer: "renewal in a batch of 20 (one payer)",
  /** One payer paying one merchant 20 times. */
  warm: "renewal in a batch of 20 (one payer, one merchant)",
  /** As `cold`, in a period that opens a slot of charge records. */
  newSlot: "renewal in a batch of 20 (new slot)",
} as const;

/** The batched renewal's figures, from the committed measurements. */
export function batchedRenewalGas(path = GAS_SNAPSHOT): BatchedRenewalGas {
  const figure = (name: string) => measuredChargeGas(path, name);
  const cold = figure(BATCHED_RENEWAL_FIGURES.cold);
  const onePayer = figure(BATCHED_RENEWAL_FIGURES.onePayer);
  const warm = figure(BATCHED_RENEWAL_FIGURES.warm);
  return { warm, newPayer: cold - onePayer, newRecipient: onePayer - warm, newSlot: figure(BATCHED_RENEWAL_FIGURES.newSlot) - cold };
}

/** What a batch's gas limit needs to know of each charge in it, in the batch's order. */
export interface BatchItemGas {
  payer: string;
  recipient: string;
  /** A renewal (no signature checked): priced from the measured figures. Otherwise `gas` is its own estimate. */
  renewal: boolean;
  /** The period opens a slot of charge records (period 6k). */
  newSlot: boolean;
  /** The charge's own gas limit (with its margin), as estimated or measured alone: a renewal's is the dearest renewal measured. */
  gas: bigint;
  /**
   * A first charge's room for its payer's ERC-1271 check beyond the estimate: the contract's
   * SIGNATURE_GAS_CAP for a contract payer (its code may answer the estimate cheaply and burn the cap on
   * chain), 0 otherwise. Without it, a payer that burns would take the gas of the items after it.
   */
  signatureRoom?: bigint;
}

/** What a charge's self-call in a batch adds to what it costs alone (the call, its calldata copied, the try). */
export const BATCH_SELF_CALL = 5_000n;

/** What a first charge after the batch's first adds beyond its own estimate: its self-call, less the 21,000 base it no longer pays. */
export const BATCH_ITEM_OVERHEAD = BATCH_SELF_CALL - 21_000n;

/**
 * A chargeBatch's gas limit. The first charge is priced as it would be alone (its own limit: the
 * 21,000 base, the batch's first touches of the contract, the token and the fee collector, and its
 * margin) plus its self-call; each later charge in order: a renewal's measured share by what it
 * touches first in the batch (its payer, its merchant, a new slot of records), with the same 1.2
 * margin as a charge alone; a first charge, its own estimate less the base, plus its self-call (and a
 * contract payer's, the cap its signature check may use on chain: `signatureRoom`). The
 * shares are averages over batches of 20 (snapshots/gas.json), so they leave the fixed cost of a
 * batch to its first charge: priced from the shares alone, a batch of two ran out of gas. A block
 * builder reserves a transaction's limit, so a limit near what the batch spends fits more renewals
 * into each block (25,000,000 gas on Base Sepolia) than the dearest case for every renewal would.
 */
export function batchGasLimit(items: readonly BatchItemGas[], figures: BatchedRenewalGas): bigint {
  const payers = new Set<string>();
  const recipients = new Set<string>();
  let limit = 0n;
  for (const [i, item] of items.entries()) {
    const payer = item.payer.toLowerCase();
    const recipient = item.recipient.toLowerCase();
    if (i === 0) {
      limit += item.gas + BATCH_SELF_CALL + (item.signatureRoom ?? 0n);
    } else if (item.renewal) {
      let share = figures.warm;
      if (!payers.has(payer)) share += figures.newPayer;
      if (!recipients.has(recipient)) share += figures.newRecipient;
      if (item.newSlot) share += figures.newSlot;
      limit += (share * 12n) / 10n;
    } else {
      limit += item.gas + BATCH_ITEM_OVERHEAD + (item.signatureRoom ?? 0n);
    }
    payers.add(payer);
    recipients.add(recipient);
  }
  return limit;
}

/** The renewals per batch the `BATCHED_RENEWAL_FIGURES` were measured in. */
export const MEASURED_BATCH_SIZE = 20n;

/** The figure of a renewal sent alone (`charge`, nothing warm, no slot opened). */
export const LONE_RENEWAL_FIGURE = "later charge";

/**
 * A chargeBatch's fixed cost: the 21,000 base, the calldata's head and the batch's first touches of
 * the contract, the token and the fee collector, which the measured shares spread over 20 renewals.
 * A batch of n cold renewals costs `fixed + n × marginal`; the lone renewal is a batch of one less its
 * self-call (`lone + BATCH_SELF_CALL = fixed + marginal`) and the cold share is
 * `fixed / 20 + marginal`, so `fixed = (lone + BATCH_SELF_CALL - cold) × 20 / 19` (about 43,000 gas).
 */
export function batchFixedGas(figures: BatchedRenewalGas, lone: bigint): bigint {
  const cold = figures.warm + figures.newPayer + figures.newRecipient;
  return ((lone + BATCH_SELF_CALL - cold) * MEASURED_BATCH_SIZE) / (MEASURED_BATCH_SIZE - 1n);
}

/**
 * What each renewal of a batch costs in L2 gas, in the batch's order (null for a first charge, which
 * keeps its own price). The renewals' part of the batch is counted from the measured figures as
 * `batchGasLimit` counts it: each renewal's warm share and, where its period opens one, a new slot
 * of records (its own), and, shared, what a payer or a merchant new to the batch adds where it is
 * first met and the renewals' part of the batch's fixed cost (which the measured shares spread over
 * 20, taken out of each). The shared part is split equally between the renewals: which renewal meets
 * a payer or a merchant first is an accident of order, not its payer's choice. It is split as over 20
 * renewals at least: a straggler batch of two (a wave's first or last) costs about 1.6 times a
 * renewal of the wave's batches of 50, and its payers would pay that above the network fee while
 * the rest of the wave pays none; the relayer keeps that part of a small batch's cost instead.
 */
export function renewalGasShares(items: readonly BatchItemGas[], figures: BatchedRenewalGas, fixed: bigint): (bigint | null)[] {
  const payers = new Set<string>();
  const recipients = new Set<string>();
  const spreadByFigures = fixed / MEASURED_BATCH_SIZE;
  let renewals = 0n;
  let firstTouches = 0n;
  const own = items.map((item) => {
    const payer = item.payer.toLowerCase();
    const recipient = item.recipient.toLowerCase();
    let share: bigint | null = null;
    if (item.renewal) {
      renewals++;
      share = figures.warm - spreadByFigures + (item.newSlot ? figures.newSlot : 0n);
      if (!payers.has(payer)) firstTouches += figures.newPayer;
      if (!recipients.has(recipient)) firstTouches += figures.newRecipient;
    }
    payers.add(payer);
    recipients.add(recipient);
    return share;
  });
  if (renewals === 0n) return own;
  const shared = (fixed * renewals) / BigInt(items.length) + firstTouches;
  const splitOver = renewals > MEASURED_BATCH_SIZE ? renewals : MEASURED_BATCH_SIZE;
  const each = (shared + splitOver - 1n) / splitOver;
  return own.map((share) => (share === null ? null : share + each));
}
