import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";

const RANGE_REFUSAL = { code: -32005, message: "query returned more than 10000 results" };

/** A fault for one request (a chaos node picks one per request): a JSON-RPC error, HTTP 429, no answer, a dropped connection, or a slow answer. */
export type RequestFault =
  | { kind: "rpc-error"; code: number; message: string }
  | { kind: "http-429" }
  | { kind: "hang" }
  | { kind: "drop" }
  | { kind: "slow"; ms: number };

/** How the proxy answers: pass through, or one kind of fault. */
export type ProxyMode =
  | "pass"
  /** A JSON-RPC error object (-32603) for every call. */
  | "rpc-error"
  /** HTTP 500 with an HTML body. */
  | "http-500"
  /** HTTP 429 (the node is rate limiting us). */
  | "http-429"
  /** Accepts the request and never answers (the client's timeout fires). */
  | "hang"
  /** HTTP 200 with a body that is not JSON. */
  | "garbage"
  /** Valid JSON-RPC whose results are malformed hex. */
  | "bad-result";

/**
 * A JSON-RPC proxy in front of the local chain that counts calls per method and injects faults,
 * for every method or only the ones `faultMethods` names.
 */
export class RpcProxy {
  mode: ProxyMode = "pass";
  /** When set, faults apply only to these methods; others pass. */
  faultMethods: Set<string> | null = null;
  readonly calls = new Map<string, number>();
  /** HTTP requests (round trips) since the last reset: a JSON-RPC batch is one. */
  requests = 0;
  /** Each `eth_call` and `eth_estimateGas` since the last reset: the contract called and the call's selector. */
  readonly contractCalls: { method: string; to: string; selector: string }[] = [];
  /**
   * Each `eth_getLogs` range asked since the last reset, in order (block numbers; a tag such as
   * "latest" is left out): the addresses it named, and, while lagging ({@link lagBlocks}), the
   * head the node played when it answered.
   */
  readonly logReads: { fromBlock: bigint; toBlock: bigint; address: string[]; nodeHead?: bigint }[] = [];
  /** Added to every forwarded round trip (a remote node), in milliseconds. */
  latencyMs = 0;
  /** When set, every request waits for it before being forwarded (a slow node, to order a race). */
  gate: ((methods: string[]) => Promise<void>) | null = null;
  /**
   * When set, a request it returns true for (alone or in a batch) is answered with a JSON-RPC error
   * (a provider refusing it: a log range over its cap, say) instead of being forwarded.
   */
  refuse: ((request: { method: string; params?: unknown[] }) => boolean) | null = null;
  /** The JSON-RPC error {@link refuse} answers with (a log range over the provider's cap by default). */
  refusal = { ...RANGE_REFUSAL };
  /**
   * When above 0, the proxy plays a node this many blocks behind the chain: `eth_blockNumber` and the
   * `latest` block answer that far back, and a block above it is unknown (null), as a lagging node
   * (or a load balancer's other node) answers.
   */
  lagBlocks = 0;
  /**
   * While lagging ({@link lagBlocks}), how it answers an `eth_getLogs` whose range ends past its head:
   * "partial", with the logs of the blocks it has (as many nodes do); "refuse", with an error.
   */
  lagLogs: "partial" | "refuse" = "partial";
  /** When true, every connection is dropped at once (a node that is down). */
  down = false;
  /**
   * When set, a hostile node: every answer the chain gives passes through it with its request, and
   * what it returns is answered instead (a forged receipt, log, `eth_call` answer or block hash).
   */
  rewrite: ((request: { method: string; params?: unknown[] }, result: unknown) => unknown) | null = null;
  /** When set, asked once per HTTP request (its methods): the fault it returns answers that request (a chaos node). */
  fault: ((methods: string[]) => RequestFault | null) | null = null;
  /**
   * The answers {@link rewrite} changed since the last reset, by method: what a liar test asserts was
   * served before it asserts the outcome, so it cannot pass without meeting the lie.
   */
  readonly lies = new Map<string, number>();
  #server: Server | null = null;
  url = "";

  constructor(private readonly upstream: string) {}

  /**
   * Listens on `host` (127.0.0.1 by default; each node of a set on its own loopback address, so the
   * service counts them as independent hosts), on `port` (any free one by default).
   */
  async start(port = 0, host = "127.0.0.1"): Promise<this> {
    // A request whose upstream fails mid-way (the chain closed under it at a test's end) drops its
    // connection, as a node that went away does: never an unhandled rejection in the test process.
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks);
        let methods: string[] = [];
        try {
          const parsed = JSON.parse(body.toString("utf8"));
          const requests: { method: string; params?: [{ to?: string; data?: string; input?: string }] }[] = Array.isArray(parsed) ? parsed : [parsed];
          methods = requests.map((r) => r.method);
          for (const r of requests) {
            const range = r.params?.[0] as { fromBlock?: string; toBlock?: string; address?: string | string[] } | undefined;
            if (r.method === "eth_getLogs" && range?.fromBlock?.startsWith("0x") && range.toBlock?.startsWith("0x"))
              this.logReads.push({
                fromBlock: BigInt(range.fromBlock),
                toBlock: BigInt(range.toBlock),
                address: [range.address ?? []].flat().map((a) => a.toLowerCase()),
              });
            if (r.method !== "eth_call" && r.method !== "eth_estimateGas") continue;
            const call = r.params?.[0] ?? {};
            this.contractCalls.push({ method: r.method, to: (call.to ?? "").toLowerCase(), selector: (call.data ?? call.input ?? "").slice(0, 10) });
          }
        } catch {
          // counted as nothing
        }
        this.requests++;
        for (const m of methods) this.calls.set(m, (this.calls.get(m) ?? 0) + 1);
        if (this.refuse) {
          const parsed = JSON.parse(body.toString("utf8")) as
            | { id: unknown; method: string; params?: unknown[] }
            | { id: unknown; method: string; params?: unknown[] }[];
          const refuse = this.refuse;
          const error = (r: { id: unknown }) => ({ jsonrpc: "2.0", id: r.id, error: this.refusal });
          if (Array.isArray(parsed) && parsed.some((r) => refuse(r)))
            return void this.#partial(parsed, error, res, (r) => refuse(r)).catch(() => res.destroy());
          if (!Array.isArray(parsed) && refuse(parsed)) {
            res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(error(parsed)));
            return;
          }
        }
        if (this.down) return void req.socket.destroy();
        const fault = this.fault?.(methods) ?? null;
        if (fault?.kind === "drop") return void req.socket.destroy();
        if (fault?.kind === "hang") return;
        if (fault?.kind === "http-429") return void res.writeHead(429, { "content-type": "text/plain", "retry-after": "1" }).end("slow down");
        if (fault?.kind === "rpc-error") {
          const parsed = JSON.parse(body.toString("utf8")) as { id: unknown } | { id: unknown }[];
          const answer = (r: { id: unknown }) => ({ jsonrpc: "2.0", id: r.id, error: { code: fault.code, message: fault.message } });
          return void res
            .writeHead(200, { "content-type": "application/json" })
            .end(JSON.stringify(Array.isArray(parsed) ? parsed.map(answer) : answer(parsed)));
        }
        if (fault?.kind === "slow") {
          const parsed = JSON.parse(body.toString("utf8"));
          const answer = () => (this.rewrite ? this.#rewritten(parsed, res).catch(() => res.destroy()) : this.#forward(body, res));
          return void setTimeout(answer, fault.ms);
        }
        if (this.rewrite && this.mode === "pass") return void this.#rewritten(JSON.parse(body.toString("utf8")), res).catch(() => res.destroy());
        if (this.lagBlocks > 0 && methods.some((m) => m === "eth_blockNumber" || m === "eth_getBlockByNumber" || m === "eth_getLogs"))
          return void this.#lagging(JSON.parse(body.toString("utf8")), res).catch(() => res.destroy());
        const faulty = this.mode !== "pass" && (!this.faultMethods || methods.some((m) => this.faultMethods!.has(m)));
        if (!faulty) {
          if (this.gate)
            return void this.gate(methods)
              .then(() => this.#forward(body, res))
              .catch(() => res.destroy());
          return this.#forward(body, res);
        }
        switch (this.mode) {
          case "rpc-error": {
            const parsed = JSON.parse(body.toString("utf8"));
            const answer = (r: { id: unknown }) => ({ jsonrpc: "2.0", id: r.id, error: { code: -32603, message: "internal error" } });
            // In a batch with `faultMethods`, only those elements fail; the others are answered by the node.
            if (Array.isArray(parsed) && this.faultMethods) return void this.#partial(parsed, answer, res).catch(() => res.destroy());
            res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(Array.isArray(parsed) ? parsed.map(answer) : answer(parsed)));
            return;
          }
          case "http-500":
            res.writeHead(500, { "content-type": "text/html" }).end("<html>upstream exploded</html>");
            return;
          case "http-429":
            res.writeHead(429, { "content-type": "text/plain", "retry-after": "1" }).end("slow down");
            return;
          case "hang":
            return; // never answers
          case "garbage":
            res.writeHead(200, { "content-type": "application/json" }).end("{this is not json");
            return;
          case "bad-result": {
            const parsed = JSON.parse(body.toString("utf8"));
            const answer = (r: { id: unknown }) => ({ jsonrpc: "2.0", id: r.id, result: { blockHash: "0xzz", status: "maybe", logs: "nope", number: "0xzz" } });
            res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(Array.isArray(parsed) ? parsed.map(answer) : answer(parsed)));
            return;
          }
        }
      });
    });
    await new Promise<void>((resolve, reject) => this.#server!.once("error", reject).listen(port, host, resolve));
    this.url = `http://${host}:${(this.#server!.address() as AddressInfo).port}`;
    return this;
  }

  /** Answers {@link rewrite} changed (lies served), in total or of the given methods, since the last reset. */
  lied(...methods: string[]): number {
    let total = 0;
    for (const [m, n] of this.lies) if (methods.length === 0 || methods.includes(m)) total += n;
    return total;
  }

  /** Total calls, or calls of the given methods, since the last reset. */
  count(...methods: string[]): number {
    let total = 0;
    for (const [m, n] of this.calls) if (methods.length === 0 || methods.includes(m)) total += n;
    return total;
  }

  reset(): void {
    this.calls.clear();
    this.lies.clear();
    this.contractCalls.length = 0;
    this.logReads.length = 0;
    this.requests = 0;
    this.mode = "pass";
    this.faultMethods = null;
    this.gate = null;
    this.refuse = null;
    this.refusal = { ...RANGE_REFUSAL };
    this.lagBlocks = 0;
    this.lagLogs = "partial";
    this.rewrite = null;
    this.fault = null;
    this.down = false;
  }

  async close(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()) ?? resolve());
  }

  #forward(body: Buffer, res: import("node:http").ServerResponse): void {
    if (this.latencyMs > 0) {
      setTimeout(() => this.#send(body, res), this.latencyMs);
      return;
    }
    this.#send(body, res);
  }

  /** Answers a batch's faulty elements with `answer` and forwards the rest, in the batch's order. */
  async #partial(
    batch: Array<{ id: unknown; method: string }>,
    answer: (r: { id: unknown }) => unknown,
    res: import("node:http").ServerResponse,
    faulty: (r: { method: string }) => boolean = (r) => this.faultMethods!.has(r.method),
  ): Promise<void> {
    const healthy = batch.filter((r) => !faulty(r));
    const forwarded = healthy.length
      ? ((await (
          await fetch(this.upstream, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(healthy) })
        ).json()) as Array<{ id: unknown }>)
      : [];
    const byId = new Map(forwarded.map((r) => [JSON.stringify(r.id), r]));
    const merged = batch.map((r) => (faulty(r) ? answer(r) : byId.get(JSON.stringify(r.id))));
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(merged));
  }

  /** Forwards the request, then answers each result as {@link rewrite} rewrites it. */
  async #rewritten(
    parsed: { id: unknown; method: string; params?: unknown[] } | { id: unknown; method: string; params?: unknown[] }[],
    res: import("node:http").ServerResponse,
  ): Promise<void> {
    const batch = Array.isArray(parsed) ? parsed : [parsed];
    const answers = (await (
      await fetch(this.upstream, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(batch) })
    ).json()) as { id: unknown; result?: unknown; error?: unknown }[];
    const byId = new Map(answers.map((a) => [JSON.stringify(a.id), a]));
    const merged = batch.map((r) => {
      const answer = byId.get(JSON.stringify(r.id))!;
      if (answer.error !== undefined) return answer;
      const result = this.rewrite!(r, answer.result);
      if (JSON.stringify(result) !== JSON.stringify(answer.result)) this.lies.set(r.method, (this.lies.get(r.method) ?? 0) + 1);
      return { ...answer, result };
    });
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(Array.isArray(parsed) ? merged : merged[0]));
  }

  /** Answers as a node {@link lagBlocks} behind: the block number and the blocks above it rewritten, the rest forwarded. */
  async #lagging(
    parsed: { id: unknown; method: string; params?: unknown[] } | { id: unknown; method: string; params?: unknown[] }[],
    res: import("node:http").ServerResponse,
  ): Promise<void> {
    const post = async (body: unknown) =>
      (await (await fetch(this.upstream, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).json()) as {
        id: unknown;
        result?: unknown;
      }[];
    const [tip] = await post([{ jsonrpc: "2.0", id: 0, method: "eth_blockNumber", params: [] }]);
    const visible = BigInt(tip!.result as string) - BigInt(this.lagBlocks);
    const hex = `0x${visible.toString(16)}`;
    const batch = Array.isArray(parsed) ? parsed : [parsed];
    for (const r of batch) {
      const range = r.params?.[0] as { fromBlock?: string; toBlock?: string } | undefined;
      if (r.method !== "eth_getLogs" || !range?.fromBlock?.startsWith("0x") || !range.toBlock?.startsWith("0x")) continue;
      const read = this.logReads.findLast((l) => l.nodeHead === undefined && l.fromBlock === BigInt(range.fromBlock!) && l.toBlock === BigInt(range.toBlock!));
      if (read) read.nodeHead = visible;
    }
    const answered = new Map<string, unknown>();
    const forward: typeof batch = [];
    for (const r of batch) {
      const at = r.method === "eth_getBlockByNumber" ? (r.params?.[0] as string) : null;
      if (r.method === "eth_blockNumber") answered.set(JSON.stringify(r.id), { jsonrpc: "2.0", id: r.id, result: hex });
      else if (at === "latest" || at === "pending") forward.push({ ...r, params: [hex, ...(r.params ?? []).slice(1)] });
      else if (at?.startsWith("0x") && BigInt(at) > visible) answered.set(JSON.stringify(r.id), { jsonrpc: "2.0", id: r.id, result: null });
      else if (r.method === "eth_getLogs" && this.lagLogs === "refuse" && BigInt((r.params?.[0] as { toBlock?: string })?.toBlock ?? "0x0") > visible)
        answered.set(JSON.stringify(r.id), { jsonrpc: "2.0", id: r.id, error: { code: -32000, message: "block range extends beyond current head block" } });
      else forward.push(r);
    }
    const forwarded = forward.length ? await post(forward) : [];
    for (const r of forwarded) {
      // A range past its head: the logs of the blocks it has.
      const asked = batch.find((b) => JSON.stringify(b.id) === JSON.stringify(r.id));
      if (asked?.method === "eth_getLogs" && Array.isArray(r.result))
        r.result = (r.result as { blockNumber: string }[]).filter((l) => BigInt(l.blockNumber) <= visible);
      answered.set(JSON.stringify(r.id), r);
    }
    const merged = batch.map((r) => answered.get(JSON.stringify(r.id)));
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(Array.isArray(parsed) ? merged : merged[0]));
  }

  #send(body: Buffer, res: import("node:http").ServerResponse): void {
    const target = new URL(this.upstream);
    const upstream = httpRequest(
      {
        hostname: target.hostname,
        port: target.port,
        path: target.pathname,
        method: "POST",
        headers: { "content-type": "application/json", "content-length": body.length },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, { "content-type": "application/json" });
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.writeHead(502).end());
    upstream.end(body);
  }
}
