import type { BaseNodeStats } from "./base-node-types.js";
import type { RequestProvider } from "./rpc-server.js";

/** `provider` with its calls run one at a time and timed per method (the in-process chain's own time, no queueing). */
export function timedOneAtATime(provider: RequestProvider, methods: BaseNodeStats["methods"]): RequestProvider {
  let last: Promise<unknown> = Promise.resolve();
  return {
    request(args) {
      const run = last.then(async () => {
        const method = methods[args.method] ?? { calls: 0, ms: 0 };
        methods[args.method] = method;
        method.calls++;
        const start = performance.now();
        try {
          return await provider.request(args);
        } finally {
          method.ms += performance.now() - start;
        }
      });
      last = run.catch(() => {});
      return run;
    },
  };
}
