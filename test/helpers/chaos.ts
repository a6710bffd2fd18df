import { numberToHex, type Hex } from "viem";
import type { RequestFault, RpcProxy } from "./rpc-proxy.js";
import { seededRandom } from "./tx.js";

/**
 * Every lie a chaos node tells (issue 59): forged or shifted receipt fields; invented, dropped,
 * duplicated or altered logs; errors (-32005, -32000, HTTP 429, no answer, a dropped connection);
 * a head far ahead or far behind; another chain id (asked again after a failure, as on a reconnect);
 * slow answers. A stale pushed head needs a WebSocket feed: test/api/pushed-heads.test.ts (and the unit
 * test/unit/pushed-head.test.ts) tell it.
 */
export const CHAOS_LIES = [
  "receipt-forged",
  "receipt-shifted",
  "log-invented",
  "log-dropped",
  "log-duplicated",
  "log-altered",
  "error-32005",
  "error-32000",
  "http-429",
  "timeout",
  "dropped-connection",
  "head-ahead",
  "head-behind",
  "chain-id",
  "slow",
] as const;
export type ChaosLie = (typeof CHAOS_LIES)[number];

/** How far a lying head is from the chain's. */
const HEAD_LIE_BLOCKS = 5_000n;

/** What a chaos node has told so far: each lie and how often. */
export interface Chaos {
  readonly seed: number;
  readonly told: Map<ChaosLie, number>;
}

/**
 * Makes `proxy` a chaos node: each request, with probability `rate`, answered with a lie picked (by
 * `seed`) among those its method allows. `hangs`: whether "timeout" (no answer until the client
 * gives up) is in the catalogue (it costs the client's whole timeout each time).
 */
export function makeChaotic(proxy: RpcProxy, seed: number, options: { rate?: number; hangs?: boolean } = {}): Chaos {
  const rate = options.rate ?? 0.3;
  const random = seededRandom(seed);
  const told = new Map<ChaosLie, number>();
  const tell = (lie: ChaosLie) => told.set(lie, (told.get(lie) ?? 0) + 1);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const faults: Array<[ChaosLie, RequestFault]> = [
    ["error-32000", { kind: "rpc-error", code: -32000, message: "internal node error" }],
    ["http-429", { kind: "http-429" }],
    ["dropped-connection", { kind: "drop" }],
    ["slow", { kind: "slow", ms: 150 }],
    ...(options.hangs === false ? [] : ([["timeout", { kind: "hang" }]] as Array<[ChaosLie, RequestFault]>)),
  ];
  proxy.fault = (methods) => {
    if (random() >= rate / 2) return null;
    if (methods.includes("eth_getLogs") && random() < 0.5) {
      tell("error-32005");
      return { kind: "rpc-error", code: -32005, message: "query returned more than 10000 results" };
    }
    const [lie, fault] = pick(faults);
    tell(lie);
    return fault;
  };
  proxy.rewrite = (request, result) => {
    if (result === null || result === undefined || random() >= rate) return result;
    const lie = lieFor(request, result, pick);
    if (!lie) return result;
    tell(lie.told);
    return lie.answer;
  };
  return { seed, told };
}

type Raw = Record<string, unknown>;
type RawLog = { data: Hex; logIndex: Hex } & Raw;

/** A lie for this answer of this method, if the catalogue has one. */
function lieFor(
  request: { method: string; params?: unknown[] },
  result: unknown,
  pick: <T>(items: readonly T[]) => T,
): { told: ChaosLie; answer: unknown } | null {
  const flip = (hex: Hex): Hex => (hex.length > 2 ? (`${hex.slice(0, -1)}${hex.endsWith("0") ? "1" : "0"}` as Hex) : "0x01");
  switch (request.method) {
    case "eth_chainId":
      return { told: "chain-id", answer: "0x1" };
    case "eth_blockNumber": {
      const ahead = pick([true, false]);
      const head = BigInt(result as Hex);
      return {
        told: ahead ? "head-ahead" : "head-behind",
        answer: numberToHex(ahead ? head + HEAD_LIE_BLOCKS : head > HEAD_LIE_BLOCKS ? head - HEAD_LIE_BLOCKS : 0n),
      };
    }
    case "eth_getBlockByNumber": {
      if (request.params?.[0] !== "latest") return null;
      const block = result as { number: Hex } & Raw;
      return { told: "head-ahead", answer: { ...block, number: numberToHex(BigInt(block.number) + HEAD_LIE_BLOCKS) } };
    }
    case "eth_getTransactionReceipt": {
      const receipt = result as { status: Hex; blockNumber: Hex; blockHash: Hex; transactionIndex: Hex; logs: RawLog[] } & Raw;
      if (pick([true, false]))
        return {
          told: "receipt-forged",
          answer: { ...receipt, status: receipt.status === "0x1" ? "0x0" : "0x1", logs: receipt.logs.map((l) => ({ ...l, data: flip(l.data) })) },
        };
      return {
        told: "receipt-shifted",
        answer: {
          ...receipt,
          blockNumber: numberToHex(BigInt(receipt.blockNumber) + 1n),
          transactionIndex: numberToHex(BigInt(receipt.transactionIndex) + 1n),
        },
      };
    }
    case "eth_getLogs": {
      const logs = result as RawLog[];
      if (logs.length === 0) return null;
      const at = pick(logs.map((_, i) => i));
      const lie = pick(["log-invented", "log-dropped", "log-duplicated", "log-altered"] as const);
      const one = logs[at]!;
      if (lie === "log-invented") return { told: lie, answer: [...logs, { ...one, logIndex: numberToHex(BigInt(one.logIndex) + 100n), data: flip(one.data) }] };
      if (lie === "log-dropped") return { told: lie, answer: logs.filter((_, i) => i !== at) };
      if (lie === "log-duplicated") return { told: lie, answer: [...logs, one] };
      return { told: lie, answer: logs.map((l, i) => (i === at ? { ...l, data: flip(l.data) } : l)) };
    }
    default:
      return null;
  }
}
