import type { Address, Hex, PublicClient } from "viem";
import { recurringChargesAbi } from "../generated/contracts.js";
import { TRANSACTION_GAS_CAP } from "./batch-size.js";
import type { Terms } from "./terms.js";

/** A charge as the trial runs it: as `chargeBatch` takes it, with the largest reimbursement its terms allow. */
export interface TrialCharge {
  terms: Terms;
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
  /** At most this many charges in one trial call. */
  maxItems: number;
  /** Milliseconds since the epoch. */
  now: () => number;
}

/** How long a subscription whose charge failed a trial alone is simulated alone, outside the trials. */
export const SOLO_MS = 24 * 3600_000;
/** At most this many such subscriptions remembered (the oldest forgotten first): a few MB. */
export const SOLO_MAX = 100_000;

interface Waiting {
  charge: TrialCharge;
  id: Hex;
  resolve: (passed: TrialPassed | null) => void;
}

/**
 * The charges' simulation, shared: the charges that reach it in one turn of the event loop are run
 * together in one `eth_call` of `chargeBatch` from the relayer, at the latest block, with the
 * subscriptions' records read beside it in one Multicall3 call. `chargeBatch` answers how many items
 * charged; when all did, each passed, as a simulation of its own would have (an item sees the ones
 * before it, as in a batch on chain). When some did not, the group is halved until each part passes
 * or is one charge, which its caller then simulates alone to name the refusal: a wave of renewals
 * costs the chain one execution of each in a trial, not one `eth_call` each, and a few refused among
 * them cost a few calls more per refusal (about two per halving). A subscription whose charge failed
 * a trial is then kept out of the trials for a day (SOLO_MS), so asking again and again for a charge
 * that fails costs one call each, as a simulation of its own always did, never the halving again.
 *
 * A trial answers only "passed"; anything else (a refusal, a node's error, a node without Multicall3)
 * answers null, and the caller's own simulation decides, as if there were no trial.
 */
export class ChargeTrials {
  #queue: Waiting[] = [];
  #scheduled = false;
  /** Subscriptions whose charge failed a trial alone: until when they are simulated alone (insertion order is age). */
  readonly #solo = new Map<Hex, number>();

  constructor(private readonly deps: TrialDeps) {}

  /** Whether `charge` (of subscription `id`) passes with the others in flight; null when it must be simulated alone. */
  trial(charge: TrialCharge, id: Hex): Promise<TrialPassed | null> {
    const solo = this.#solo.get(id);
    if (solo !== undefined) {
      if (solo > this.deps.now()) return Promise.resolve(null);
      this.#solo.delete(id);
    }
    return new Promise((resolve) => {
      this.#queue.push({ charge, id, resolve });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const queue = this.#queue;
    this.#queue = [];
    for (let i = 0; i < queue.length; i += this.deps.maxItems) void this.#run(queue.slice(i, i + this.deps.maxItems));
  }

  async #run(group: Waiting[]): Promise<void> {
    const records = this.#records(group.map((w) => w.id));
    await this.#try(group, records);
  }

  /** Trials `group`, halving what does not pass; every item's promise is settled. */
  async #try(group: Waiting[], records: Promise<Array<number | null> | null>): Promise<void> {
    const charged = await this.#charged(group.map((w) => w.charge));
    if (charged === group.length) {
      const read = await records;
      for (const [i, w] of group.entries()) {
        const paid = read?.[i] ?? null;
        w.resolve(paid === null ? null : { paidCountBefore: paid });
      }
      return;
    }
    if (charged === null || group.length === 1) {
      if (charged === 0 && group.length === 1) this.#keepApart(group[0]!.id);
      for (const w of group) w.resolve(null);
      return;
    }
    const half = Math.ceil(group.length / 2);
    const [first, second] = [group.slice(0, half), group.slice(half)];
    await Promise.all([
      this.#try(
        first,
        records.then((r) => r?.slice(0, half) ?? null),
      ),
      this.#try(
        second,
        records.then((r) => r?.slice(half) ?? null),
      ),
    ]);
  }

  #keepApart(id: Hex): void {
    this.#solo.delete(id);
    if (this.#solo.size >= SOLO_MAX) this.#solo.delete(this.#solo.keys().next().value!);
    this.#solo.set(id, this.deps.now() + SOLO_MS);
  }

  /** How many of `charges` a `chargeBatch` from the relayer charges at the latest block; null when the call failed. */
  async #charged(charges: TrialCharge[]): Promise<number | null> {
    try {
      const { result } = await this.deps.client.simulateContract({
        address: this.deps.contract,
        abi: recurringChargesAbi,
        functionName: "chargeBatch",
        args: [charges],
        account: this.deps.relayer,
        gas: TRANSACTION_GAS_CAP,
      });
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
