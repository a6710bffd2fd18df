/**
 * The loop behind `stablecoin-events listen`: reads a capability's events (POST /v1/events) and POSTs
 * each one to a local URL with its body and signed headers exactly as a delivery carries them, oldest
 * first, one at a time, so a receiver on a laptop (plain http, any port) gets what the service would
 * deliver to its public https URL. The last event forwarded is kept (`state`) so a restart resumes
 * after it; the service or the target being down is waited out, never skipped: an event counts as
 * forwarded only once the target answered it 2xx.
 */
import { ApiConnectionError, ApiError } from "./errors.js";
import type { PaymentServiceClient } from "./index.js";
import { joined, networkRetryDelayMs, pause } from "./transport.js";
import type { EventsRequest, EventsResponse } from "./types.js";

type StoredEvent = EventsResponse["events"][number];

/** Where the last forwarded event id is kept between runs. */
export interface ListenState {
  read(): Promise<string | undefined>;
  write(lastEventId: string): Promise<void>;
}

export interface ListenOptions {
  api: PaymentServiceClient;
  /** An intent (pi.…), a link's manage token (lm.…) or a subscription capability (sc.…). */
  capability: string;
  forwardTo: string;
  state?: ListenState;
  /** Between two reads of the events once caught up (default 2,000; POST /v1/events is limited per IP). */
  pollMs?: number;
  /** Milliseconds the target may take to answer (default 10,000, as deliveries). */
  targetTimeoutMs?: number;
  /** One line per event forwarded, and per outage. */
  log: (line: string) => void;
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/** The request naming `capability` by its kind, from its prefix. */
export function eventsRequestOf(capability: string): EventsRequest {
  const kind = capability.split(".", 1)[0];
  if (kind === "pi") return { intent: capability };
  if (kind === "lm") return { manage_token: capability };
  if (kind === "sc") return { subscription: capability };
  throw new Error("the capability must be an intent (pi.…), a link's manage token (lm.…) or a subscription capability (sc.…)");
}

/** The headers a delivery carries: the event's signed ones, as the service sends them. */
export function deliveryHeaders(event: StoredEvent): Record<string, string> {
  return { ...event.headers, "user-agent": "svc-webhooks/1", "content-type": "application/json" };
}

/** Runs until `signal` aborts; throws only on a capability the service refuses (FIX_REQUEST, STOP). */
export async function listenEvents(o: ListenOptions): Promise<void> {
  const request = eventsRequestOf(o.capability);
  const post = o.fetch ?? ((input, init) => fetch(input, init));
  const pollMs = o.pollMs ?? 2_000;
  let after = await o.state?.read();
  let serviceDown = 0;
  let targetDown = 0;
  const requestOptions = o.signal ? { signal: o.signal } : {};
  while (!o.signal?.aborted) {
    let wait = pollMs;
    try {
      for await (const event of o.api.iterateEvents({ ...request, ...(after ? { after } : {}) }, requestOptions)) {
        serviceDown = 0;
        const outcome = await forward(post, o.forwardTo, event, o.targetTimeoutMs ?? 10_000, o.signal);
        if (typeof outcome === "number" && outcome >= 200 && outcome < 300) {
          targetDown = 0;
          after = event.id;
          await o.state?.write(after);
          o.log(`${new Date().toISOString()}  ${event.type.padEnd(28)} ${event.id}  → ${outcome}`);
          continue;
        }
        targetDown++;
        wait = networkRetryDelayMs(Math.min(targetDown, 6));
        o.log(`${new Date().toISOString()}  ${event.type.padEnd(28)} ${event.id}  → ${outcome}: kept, forwarded again in ${(wait / 1000).toFixed(1)} s`);
        break; // read again after the wait, from the last event forwarded: the service answers it with the headers it was first signed with
      }
      serviceDown = 0;
    } catch (error) {
      if (o.signal?.aborted) return;
      if (error instanceof ApiError && !error.retryable) throw error;
      serviceDown++;
      wait = error instanceof ApiError ? (error.retryAfter ?? 1) * 1000 : Math.max(pollMs, networkRetryDelayMs(Math.min(serviceDown, 6)));
      const why = error instanceof ApiConnectionError ? "the service is unreachable" : `the service answered ${(error as Error).message}`;
      if (serviceDown === 1 || error instanceof ApiError) o.log(`${new Date().toISOString()}  ${why}: trying again`);
    }
    try {
      await pause(wait, o.signal);
    } catch {
      return;
    }
  }
}

/** POSTs one event to the target; its status, or why no status came. */
async function forward(post: typeof fetch, url: string, event: StoredEvent, timeoutMs: number, signal?: AbortSignal): Promise<number | string> {
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const res = await post(url, {
      method: "POST",
      headers: deliveryHeaders(event),
      body: event.body,
      redirect: "manual",
      signal: joined([signal, timeout]) ?? timeout,
    });
    await res.arrayBuffer().catch(() => undefined);
    return res.status;
  } catch (error) {
    if (signal?.aborted) throw error;
    return timeout.aborted ? `no answer in ${timeoutMs} ms` : `unreachable (${(error as Error).message})`;
  }
}
