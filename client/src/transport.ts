/**
 * One call to the service, as stripe-node makes it: each attempt bounded by `timeoutMs`, a failed
 * connection or a timeout tried again after a growing, jittered wait (up to `maxNetworkRetries`
 * times), then {@link ApiConnectionError}; the caller's `signal` ends everything at once. An answer
 * is JSON of the service's shape or an error: a 2xx that is not a JSON object, or an error status
 * without `{ error }`, throws {@link InvalidResponseError}. A gateway's non-JSON 502/503/504 (the
 * service behind it not reached) counts as a failed connection.
 */
import { ApiConnectionError, ApiError, InvalidResponseError } from "./errors.js";
import type { Action, PaymentSender } from "./types.js";

/** Per-call options; each overrides the client's own. */
export interface RequestOptions {
  /** Ends the call (every attempt and wait) when aborted; it then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Milliseconds one attempt may take, the answer's body included (default 30,000). */
  timeoutMs?: number;
  /** How many times a failed connection or a timeout is tried again (default 2). */
  maxNetworkRetries?: number;
}

export interface TransportOptions {
  fetch: typeof fetch;
  timeoutMs: number;
  maxNetworkRetries: number;
  signal: AbortSignal | undefined;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_NETWORK_RETRIES = 2;

/** The wait before network retry `n` (1, 2, …): 0.5 s doubling up to 8 s, less up to half at random. */
export function networkRetryDelayMs(n: number, random: () => number = Math.random): number {
  const ceiling = Math.min(8_000, 500 * 2 ** (n - 1));
  return Math.round(ceiling * (1 - random() / 2));
}

/** Waits `ms`, or rejects with the signal's reason as soon as it is aborted. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      signal?.removeEventListener("abort", stop);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", stop, { once: true });
  });
}

/** The caller's signals as one (undefined when none). */
export function joined(signals: Array<AbortSignal | undefined>): AbortSignal | undefined {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  if (present.length <= 1) return present[0];
  if (typeof AbortSignal.any === "function") return AbortSignal.any(present);
  // Node 20.0–20.2 and older browsers: the same, by hand.
  const controller = new AbortController();
  for (const signal of present) {
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
}

class GatewayAnswer extends Error {}

/** Sends `init` to `url` and returns the parsed answer of the service, or throws one of the client's errors. */
export async function send<T>(transport: TransportOptions, url: string, init: RequestInit, options: RequestOptions = {}): Promise<T> {
  const caller = joined([transport.signal, options.signal]);
  const timeoutMs = options.timeoutMs ?? transport.timeoutMs;
  const retries = Math.max(0, options.maxNetworkRetries ?? transport.maxNetworkRetries);
  for (let attempt = 1; ; attempt++) {
    const timeout = AbortSignal.timeout(timeoutMs);
    let res: Response;
    let text: string;
    try {
      res = await transport.fetch(url, { ...init, signal: joined([caller, timeout]) ?? null });
      text = await res.text();
      if (res.status >= 502 && res.status <= 504 && !isJson(text)) throw new GatewayAnswer(`${res.status} from a gateway, not the service`);
    } catch (error) {
      if (caller?.aborted) throw caller.reason;
      const timedOut = timeout.aborted;
      if (attempt > retries) {
        const why = timedOut ? `no answer within ${timeoutMs} ms` : `the connection failed (${(error as Error).message})`;
        throw new ApiConnectionError(`${init.method ?? "GET"} ${url}: ${why}, ${attempt} attempt${attempt > 1 ? "s" : ""}`, attempt, timedOut, {
          cause: error,
        });
      }
      await pause(networkRetryDelayMs(attempt), caller);
      continue;
    }
    return answerOf<T>(res, text);
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The service's answer: a 2xx's JSON object, or its error model thrown as {@link ApiError}. */
function answerOf<T>(res: Response, text: string): T {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new InvalidResponseError(res.status, res.headers.get("content-type"), text.slice(0, 200));
  }
  if (res.ok) {
    if (!isObject(body)) throw new InvalidResponseError(res.status, res.headers.get("content-type"), text.slice(0, 200));
    return body as T;
  }
  if (!isObject(body) || typeof body.error !== "string") throw new InvalidResponseError(res.status, res.headers.get("content-type"), text.slice(0, 200));
  const header = Number(res.headers.get("retry-after"));
  const retryAfter = typeof body.retry_after === "number" ? body.retry_after : Number.isFinite(header) && header > 0 ? header : undefined;
  const senders = Array.isArray(body.senders) ? (body.senders as PaymentSender[]) : undefined;
  throw new ApiError(res.status, body.error, body.action as Action | undefined, retryAfter, res.headers.get("svc-error-detail") ?? undefined, senders);
}
