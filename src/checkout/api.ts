/** The API, called like any other client: POST JSON, capabilities in the body, never in the URL. */
export interface ApiAnswer<T> {
  ok: boolean;
  status: number;
  body: T & { error?: string; action?: string; retry_after?: number };
}

export async function post<T>(path: string, body: unknown): Promise<ApiAnswer<T>> {
  let res: Response;
  try {
    res = await fetch(new URL(`../${path.replace(/^\//, "")}`, location.href.split("#")[0]), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      credentials: "omit",
      referrerPolicy: "no-referrer",
    });
  } catch {
    return { ok: false, status: 0, body: { error: "NETWORK", action: "RETRY", retry_after: 5 } as unknown as ApiAnswer<T>["body"] };
  }
  const parsed = (await res.json().catch(() => ({ error: "INTERNAL_ERROR" }))) as ApiAnswer<T>["body"];
  return { ok: res.ok, status: res.status, body: parsed };
}
