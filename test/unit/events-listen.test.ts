import { assert } from "chai";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { PaymentServiceClient } from "../../client/src/index.js";
import { eventsRequestOf, listenEvents } from "../../client/src/listen.js";

const id = (n: number) => `evt_${n.toString(16).padStart(32, "0")}`;
const event = (n: number) => ({
  id: id(n),
  type: "payment.settled",
  data: { intent: "pi.x" },
  body: `{"id":"${id(n)}"}`,
  headers: { "webhook-id": id(n), "webhook-timestamp": "1", "webhook-signature": "v1a,AA==", "svc-event-id": id(n), "svc-event-type": "payment.settled" },
});

/** POST /v1/events over `count` events, 2 a page; connections are dropped while `down()` says so. */
async function fakeService(count: number, down: () => boolean) {
  const asked: Array<string | undefined> = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const after = (JSON.parse(body) as { after?: string }).after;
      asked.push(after);
      const start = after ? Number.parseInt(after.slice(4), 16) + 1 : 1;
      const events = Array.from({ length: Math.max(0, Math.min(2, count - start + 1)) }, (_, i) => event(start + i));
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ events, next: events.at(-1)?.id ?? after ?? null }));
    });
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    if (down()) s.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    asked,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe("listenEvents (client/src/listen.ts)", () => {
  it("names the capability by its kind", () => {
    assert.deepEqual(eventsRequestOf("pi.local.a.b"), { intent: "pi.local.a.b" });
    assert.deepEqual(eventsRequestOf("lm.a"), { manage_token: "lm.a" });
    assert.deepEqual(eventsRequestOf("sc.local.a"), { subscription: "sc.local.a" });
    assert.throws(() => eventsRequestOf("st.local.a"), /intent \(pi/);
  });

  it("survives the service being down, resumes after the stored id, and forwards each event once, in order, only when the target said 2xx", async () => {
    let serviceDown = true;
    const service = await fakeService(5, () => serviceDown);
    const forwarded: string[] = [];
    const lines: string[] = [];
    let stored: string | undefined = id(1); // a previous run forwarded event 1
    let targetFailures = 1;
    const stop = new AbortController();
    const target: typeof fetch = async (_url, init) => {
      if (targetFailures-- > 0) throw new TypeError("fetch failed");
      forwarded.push(String(init!.body));
      if (forwarded.length === 4) stop.abort();
      return new Response(null, { status: 204 });
    };
    setTimeout(() => (serviceDown = false), 300);
    await listenEvents({
      api: new PaymentServiceClient({ baseUrl: service.url, maxNetworkRetries: 0 }),
      capability: "pi.local.x.y",
      forwardTo: "http://127.0.0.1:1/hooks",
      state: {
        read: async () => stored,
        write: async (after) => {
          stored = after;
        },
      },
      pollMs: 20,
      fetch: target,
      log: (l) => lines.push(l),
      signal: stop.signal,
    });
    await service.close();
    assert.deepEqual(
      forwarded,
      [2, 3, 4, 5].map((n) => `{"id":"${id(n)}"}`),
    );
    assert.equal(stored, id(5));
    assert.equal(service.asked[0], id(1), "the first read starts after the stored id");
    assert.isTrue(
      lines.some((l) => /the service is unreachable/.test(l)),
      lines.join("\n"),
    );
    assert.isTrue(
      lines.some((l) => /unreachable \(fetch failed\): kept/.test(l)),
      lines.join("\n"),
    );
  });
});
