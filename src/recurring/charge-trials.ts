import { decodeFunctionResult, type Address, type Hex, type PublicClient } from "viem";
import { recurringChargesAbi } from "../generated/contracts.js";
import { TRANSACTION_GAS_CAP } from "./batch-size.js";
import { majorityRead } from "../chain/majority-read.js";
import type { Terms } from "./terms.js";
import { chargeBatchCalldata } from "./charge-encoding.js";

/** A charge as the trial runs it: as `chargeBatch` takes it, with the largest reimbursement its terms allow. */
export interface TrialCharge {
  terms: Terms;
  /** The terms' ABI words (charge-encoding.ts), encoded once per charge. */
  words: string;
  signature: Hex;
  gasReimbursement: bigint;
  expectedPeriod: bigint;
}

/** A charge that passed: how many periods the subscription had paid before it (0: this is its first charge). */
export interface TrialPassed {
  paidCountBefore: number;
}

export interface TrialDeps {
  client: PublicClient;
  contract: Address;
  relayer: Address;
  /** The deployment's fee collector: it receives from every item, so its own charges are simulated alone. */
  feeCollector: Address;
  /** At most this many charges in one trial call. */
  maxItems: number;
  /** Milliseconds since the epoch. */
  now: () => number;
}

/**
 * Trial rounds in flight at once. The chain runs one call at a time, so more rounds under way only
 * queue there; charges arriving meanwhile gather and leave together when a round ends (a group
 * commit), in trials of up to `maxItems`, not one small trial per turn of the event loop.
 */
export const TRIAL_ROUNDS = 2;

/** How long a subscription (or payer) that failed a trial is simulated alone, outside the trials. */
export const SOLO_MS = 24 * 3600_000;
/** At most this many such subscriptions and payers remembered (the oldest forgotten first): about 15 MB. */
export const SOLO_MAX = 100_000;

interface Waiting {
  charge: TrialCharge;
  id: Hex;
  resolve: (passed: TrialPassed | null) => void;
}

/** A group being filled: its charges, and the payers and recipients they name. */
interface Forming {
  items: Waiting[];
  payers: Set<string>;
  recipients: Set<string>;
}

/**
 * The charges' simulation, shared: the charges that reach it in one turn of the event loop, or while
 * TRIAL_ROUNDS rounds are under way, are run together in `eth_call`s of `chargeBatch` (up to
 * `maxItems` each) from the relayer, at the latest block, with the
 * subscriptions' records read beside it in one Multicall3 call. `chargeBatch` answers how many items
 * charged; when all did, each passed, as a simulation of its own would have, and its paid count says
 * renewal or first charge. A wave of renewals costs the chain one execution of each in a trial, not
 * one `eth_call` each.
 *
 * What no trial decides, and what a failed trial costs:
 * - A trial answers only "passed"; anything else answers null, and the caller's own simulation
 *   decides, as if there were no trial (it names the refusal).
 * - Charges of period 0 (nearly every first charge, which anyone can set up for nothing) and charges
 *   of the fee collector are never tried. A group holds no payer that is the recipient of another of
 *   its charges, so no charge passes on income from the trial itself; a payer's several charges may
 *   share a group, which passes only if the payer's funds cover them all in sequence.
 * - When no charge of a group charged, nothing in it changed the state, so each fails alone too: all
 *   answer null at once (a paused token, a blacklisted fee collector, a period boundary).
 * - When some did, the group is halved until each part passes or is one charge; that charge's
 *   subscription is kept out of trials for a day (SOLO_MS). When every part passes, the group failed
 *   on its payers' funds for their charges together, and those payers are kept out. Asking again and
 *   again for a charge that fails costs one call each, as a simulation of its own always did.
 */
export class ChargeTrials {
  #queue: Waiting[] = [];
  #scheduled = false;
  /** Trial rounds under way (each a flush of the queue: its groups, halved as they fail). */
  #rounds = 0;
  /** Subscription ids and payers that failed a trial: until when they are simulated alone (insertion order is age). */
  readonly #solo = new Map<Hex, number>();

  constructor(private readonly deps: TrialDeps) {}

  /** Whether `charge` (of subscription `id`) passes with the others in flight; null when it must be simulated alone. */
  trial(charge: TrialCharge, id: Hex): Promise<TrialPassed | null> {
    const payer = charge.terms.payer.toLowerCase() as Hex;
    if (charge.expectedPeriod === 0n || payer === this.deps.feeCollector.toLowerCase() || this.#apart(id) || this.#apart(payer)) return Promise.resolve(null);
    return new Promise((resolve) => {
      this.#queue.push({ charge, id, resolve });
      this.#schedule();
    });
  }

  /** A flush at the next turn, unless one is due or every round is under way (the one ending then flushes). */
  #schedule(): void {
    if (this.#scheduled || this.#rounds >= TRIAL_ROUNDS || this.#queue.length === 0) return;
    this.#scheduled = true;
    setImmediate(() => this.#flush());
  }

  /** Whether `key` (a subscription id or a payer) is still kept out of trials. */
  #apart(key: Hex): boolean {
    const until = this.#solo.get(key);
    if (until === undefined) return false;
    if (until > this.deps.now()) return true;
    this.#solo.delete(key);
    return false;
  }

  /** Deals the queue into groups of at most maxItems in which no payer is another charge's recipient. */
  #flush(): void {
    this.#scheduled = false;
    const queue = this.#queue;
    this.#queue = [];
    const groups: Forming[] = [];
    for (const w of queue) {
      const payer = w.charge.terms.payer.toLowerCase();
      const recipient = w.charge.terms.recipient.toLowerCase();
      let group = groups.find((g) => g.items.length < this.deps.maxItems && !g.recipients.has(payer) && !g.payers.has(recipient));
      if (!group) {
        group = { items: [], payers: new Set(), recipients: new Set() };
        groups.push(group);
      }
      group.items.push(w);
      group.payers.add(payer);
      group.recipients.add(recipient);
    }
    this.#rounds++;
    void Promise.all(groups.map((g) => this.#run(g.items))).finally(() => {
      this.#rounds--;
      this.#schedule();
    });
  }

  async #run(group: Waiting[]): Promise<void> {
    const records = this.#records(group.map((w) => w.id));
    await this.#try(group, records);
  }

  /** Trials `group`, halving what does not pass; every item's promise is settled. Whether every item passed. */
  async #try(group: Waiting[], records: Promise<Array<number | null> | null>): Promise<boolean> {
    const charged = await this.#charged(group.map((w) => w.charge));
    if (charged === group.length) {
      const read = await records;
      for (const [i, w] of group.entries()) {
        const paid = read?.[i] ?? null;
        w.resolve(paid === null ? null : { paidCountBefore: paid });
      }
      return true;
    }
    if (charged === null || charged === 0 || group.length === 1) {
      // One charge that failed on its own is kept apart; a whole group that failed is no charge's doing.
      if (charged === 0 && group.length === 1) this.#keepApart(group[0]!.id);
      for (const w of group) w.resolve(null);
      return false;
    }
    const half = Math.ceil(group.length / 2);
    const [first, second] = [group.slice(0, half), group.slice(half)];
    const passed = await Promise.all([
      this.#try(
        first,
        records.then((r) => r?.slice(0, half) ?? null),
      ),
      this.#try(
        second,
        records.then((r) => r?.slice(half) ?? null),
      ),
    ]);
    if (passed[0] && passed[1]) {
      // Each half passes and the whole did not: a payer in both halves whose funds cover its charges
      // apart but not together. Its charges are simulated alone from now on (each may then be sent,
      // and the chain skips what the funds do not cover, as without trials).
      const payersOf = (part: Waiting[]) => new Set(part.map((w) => w.charge.terms.payer.toLowerCase() as Hex));
      const inFirst = payersOf(first);
      for (const payer of payersOf(second)) if (inFirst.has(payer)) this.#keepApart(payer);
    }
    return false;
  }

  #keepApart(key: Hex): void {
    this.#solo.delete(key);
    if (this.#solo.size >= SOLO_MAX) this.#solo.delete(this.#solo.keys().next().value!);
    this.#solo.set(key, this.deps.now() + SOLO_MS);
  }

  /** How many of `charges` a `chargeBatch` from the relayer charges at the latest block; null when the call failed. */
  async #charged(charges: TrialCharge[]): Promise<number | null> {
    try {
      // What a batch would charge decides what is sent: a majority's answer, never one node's.
      const data = chargeBatchCalldata(charges.map((c) => ({ ...c, terms: c.words })));
      const result = await majorityRead(this.deps.client, (c) =>
        c.call({ to: this.deps.contract, data, account: this.deps.relayer, gas: TRANSACTION_GAS_CAP }).then(({ data: answer }) => {
          if (answer === undefined) throw new Error("chargeBatch answered nothing");
          return decodeFunctionResult({ abi: recurringChargesAbi, functionName: "chargeBatch", data: answer });
        }),
      );
      return Number(result);
    } catch {
      return null;
    }
  }

  /** The subscriptions' paid counts at the latest block, in one Multicall3 call; null when it failed. */
  async #records(ids: Hex[]): Promise<Array<number | null> | null> {
    try {
      const read = await this.deps.client.multicall({
        contracts: ids.map((id) => ({ address: this.deps.contract, abi: recurringChargesAbi, functionName: "subscriptions", args: [id] }) as const),
        allowFailure: true,
        // One call for the group, however long (viem splits at 1,024 bytes by default).
        batchSize: 0,
      });
      return read.map((r) => (r.status === "success" ? r.result[1] : null));
    } catch {
      return null;
    }
  }
}
