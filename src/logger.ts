import { pino, type DestinationStream, type Logger } from "pino";

/**
 * Structured logs. Request bodies are never logged (tokens travel in bodies), and anything that
 * looks like a capability token or a URL with credentials is masked as a second line of defence.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: undefined,
    redact: { paths: ["req.body", "body", "*.intent", "*.subscription", "*.token", "*.rpcUrl"], censor: "[redacted]" },
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((a) => (typeof a === "string" ? maskSecrets(a) : a)) as Parameters<typeof method>);
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/** Masks capability tokens (`xx.key.payload.sig`) and the path/query of URLs in a log message. */
export function maskSecrets(text: string): string {
  return text
    .replace(/\b(pi|lk|lm|st|sc|ct|rt|at)\.[a-z0-9]{1,16}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, "$1.[token]")
    .replace(/(https?:\/\/[^\s/"']+)[^\s"']*/g, "$1/[…]");
}

/**
 * A request path as it may be logged: a segment that looks like a capability (a kind marker and
 * dots, `pi.k1.…`) or any long opaque segment (24 characters or more of token alphabet) is masked, so
 * a capability a client wrongly put in a path never reaches the logs verbatim.
 */
export function maskPath(path: string): string {
  return path
    .split("/")
    .map((segment) => {
      let decoded = segment;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        // keep the raw segment
      }
      return /^(pi|lk|lm|st|sc|ct|rt|at)\./.test(decoded) || /^[A-Za-z0-9_.~%+=-]{24,}$/.test(segment) ? "[masked]" : segment;
    })
    .join("/");
}

export type { Logger };
