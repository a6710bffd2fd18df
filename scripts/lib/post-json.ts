// The renewal job's client: a JSON POST over node:http with connections kept alive, one per request in
// flight. undici's fetch cost the bench's own thread several times a plain request's CPU per call, and
// that thread shares the machine with the service and the chain being measured.
import { Agent, request } from "node:http";

export interface JsonAnswer {
  status: number;
  retryAfter: string | null;
  body: Record<string, unknown>;
}

/**
 * A POST client with `sockets` kept-alive connections. A connection the server reset (or any failure
 * to get an answer) comes back as status 0 with Retry-After 1: the renewal job counts it and asks
 * again, as a merchant's would.
 */
export function jsonPoster(sockets: number): (base: string, path: string, body: unknown) => Promise<JsonAnswer> {
  const agent = new Agent({ keepAlive: true, maxSockets: sockets });
  return (base, path, body) =>
    new Promise<JsonAnswer>((resolve) => {
      const payload = JSON.stringify(body);
      const failed = (error: unknown) =>
        resolve({ status: 0, retryAfter: "1", body: { error: `no answer (${String((error as { code?: string }).code ?? error)})` } });
      const req = request(
        `${base}${path}`,
        { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", failed);
          res.on("end", () => {
            try {
              const retryAfter = res.headers["retry-after"];
              resolve({
                status: res.statusCode ?? 0,
                retryAfter: typeof retryAfter === "string" ? retryAfter : null,
                body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>,
              });
            } catch (error) {
              failed(error);
            }
          });
        },
      );
      req.on("error", failed);
      req.end(payload);
    });
}
