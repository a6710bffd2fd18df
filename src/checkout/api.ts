import { ApiError, PaymentServiceClient } from "../../client/src/index.js";

/**
 * The API, called through the project's own typed client (client/src, the package merchants use):
 * POST JSON, capabilities in the body, never in the URL; no cookies, no referrer. The API is the
 * checkout's parent path (the service mounts the checkout at {base_url}/checkout/).
 */
export const api = new PaymentServiceClient({
  baseUrl: new URL("..", location.href.split("#")[0]).href,
  fetch: (input, init) => fetch(input, { ...init, credentials: "omit", referrerPolicy: "no-referrer" }),
});

/** A call's outcome as the pages branch on it: the answer, or the error body (`error`, `action`, `retry_after`). */
export type ApiAnswer<T> = { ok: true; status: 200; body: T } | { ok: false; status: number; body: { error: string; action?: string; retry_after?: number } };

/** Runs a client call and folds its ApiError (or a network failure) into an {@link ApiAnswer}. */
export async function answerOf<T>(call: Promise<T>): Promise<ApiAnswer<T>> {
  try {
    return { ok: true, status: 200, body: await call };
  } catch (error) {
    if (error instanceof ApiError) {
      const retry = error.retryAfter === undefined ? {} : { retry_after: error.retryAfter };
      return { ok: false, status: error.status, body: { error: error.error, ...(error.action ? { action: error.action } : {}), ...retry } };
    }
    return { ok: false, status: 0, body: { error: "NETWORK", action: "RETRY", retry_after: 5 } };
  }
}
