// The service of a bench in a process of its own (scripts/lib/bench-service.ts starts it): every CPU
// tick of this process is the service's, apart from the chain, the node in front of it and the load
// that the bench runs in its own process. Configured by BENCH_SERVICE_RPC_URL and BENCH_SERVICE_ENV
// (JSON, as configFor takes it); answers the parent over IPC: its API and ops URLs once listening,
// and a CPU profile of the span between "profile-start" and "profile-stop".
import { writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { Session } from "node:inspector/promises";
import type { Express } from "express";
import { createLogger } from "../../src/logger.js";
import { createService } from "../../src/service.js";
import { configFor } from "../../test/helpers/service.js";

/** Listens with `app` on a free loopback port. */
function serve(app: Express) {
  return new Promise<{ url: string; server: import("node:http").Server }>((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }));
  });
}

type Command = { kind: "profile-start" } | { kind: "profile-stop"; file: string } | { kind: "close" };

const send = (message: unknown) => process.send!(message);
const env = JSON.parse(process.env.BENCH_SERVICE_ENV ?? "{}") as Record<string, string>;
const service = await createService(configFor(process.env.BENCH_SERVICE_RPC_URL!, env), { logger: createLogger("silent") });
const api = await serve(service.app);
const ops = await serve(service.opsApp);
let profiler: Session | null = null;
process.on("message", (command: Command) => {
  void (async () => {
    if (command.kind === "profile-start") {
      profiler = new Session();
      profiler.connect();
      await profiler.post("Profiler.enable");
      // 1 ms between samples: V8's default, the granularity `node --cpu-prof` samples at.
      await profiler.post("Profiler.setSamplingInterval", { interval: 1000 });
      await profiler.post("Profiler.start");
      send({ kind: "profiling" });
    } else if (command.kind === "profile-stop") {
      const { profile } = await profiler!.post("Profiler.stop");
      profiler!.disconnect();
      profiler = null;
      writeFileSync(command.file, JSON.stringify(profile));
      send({ kind: "profiled", file: command.file });
    } else {
      api.server.closeAllConnections();
      api.server.close();
      ops.server.close();
      await service.close();
      process.exit(0);
    }
  })().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
});
send({ kind: "listening", api: api.url, ops: ops.url });
