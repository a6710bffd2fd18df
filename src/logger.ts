import { pino, type DestinationStream, type Logger } from "pino";

/**
 * Structured logs. Request bodies are never logged (tokens travel in bodies), and anything that
 * looks like a capability token or a URL with credentials is masked as a second line of defence.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: undefined,
    redact: { paths: ["req.body", "body", "*.intent", "*.subscription", "*.token", "*.rpcUrl", "*.rpcUrls"], censor: "[redacted]" },
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

/**
 * An RPC or service URL as it may be printed: user name and password, every query value, and any
 * path segment that looks like an API key (16 characters or more of key alphabet, as in
 * `/v2/<key>` or `/v3/<key>`) are replaced by `***`. Scheme, host, port and short path segments
 * stay, so the operator still sees which endpoint is used.
 */
export function redactUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "[unparsable URL]";
  }
  if (url.username) url.username = "***";
  if (url.password) url.password = "***";
  url.pathname = url.pathname
    .split("/")
    .map((segment) => (/^[A-Za-z0-9_~.%+=-]{16,}$/.test(segment) ? "***" : segment))
    .join("/");
  for (const key of [...url.searchParams.keys()]) url.searchParams.set(key, "***");
  url.hash = "";
  return url.toString().replace(/%2A%2A%2A/g, "***");
}

export type { Logger };
