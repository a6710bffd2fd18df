// Where the helper scripts (pay, subscribe, refund, demo, chain) find the local stack: the same
// variables `npm start` reads, so a stack started with PORT / CHAIN_PORT is found without more.
//   API_URL        default http://127.0.0.1:$PORT (PORT default 8787; HOST when it is not a wildcard)
//   CHAIN_RPC_URL  default http://127.0.0.1:$CHAIN_PORT (CHAIN_PORT default 8545)
import { LOCAL_ACCOUNT_COUNT } from "../../dev/localchain/harness.js";

const env = process.env;

/** Prints one line to stderr and exits 1: what went wrong and what to do, never a stack trace. */
export function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

function port(name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 65535) fail(`${name}=${raw} is not a port (1–65535)`);
  return value;
}

function url(name: string, fallback: string): string {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  try {
    const parsed = new URL(raw);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error();
  } catch {
    fail(`${name}=${raw} is not an http(s) URL`);
  }
  return raw.replace(/\/$/, "");
}

const host = !env.HOST || env.HOST === "0.0.0.0" || env.HOST === "::" ? "127.0.0.1" : env.HOST;
export const API_URL = url("API_URL", `http://${host.includes(":") ? `[${host}]` : host}:${port("PORT", 8787)}`);
export const CHAIN_RPC_URL = url("CHAIN_RPC_URL", `http://127.0.0.1:${port("CHAIN_PORT", 8545)}`);

/** A local account index from the command line (0–19), or the default. */
export function accountIndex(arg: string | undefined, fallback: number): number {
  if (arg === undefined) return fallback;
  const index = Number(arg);
  if (!/^\d+$/.test(arg) || index >= LOCAL_ACCOUNT_COUNT)
    fail(`account must be a local account index 0–${LOCAL_ACCOUNT_COUNT - 1}, not ${JSON.stringify(arg)}`);
  return index;
}

/** POSTs to the API; one clear line when nothing answers or the answer is an error. */
export async function post<T>(path: string, body: unknown, what: string): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${API_URL}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  } catch {
    fail(`nothing answers at ${API_URL}: start the stack (npm start), or set API_URL / PORT`);
  }
  const answer = (await res.json().catch(() => ({}))) as T & { error?: string; action?: string };
  if (!res.ok) fail(`${what}: ${res.status} ${answer.error ?? "no error code"}${answer.action ? ` (${answer.action})` : ""}`);
  return answer;
}

/** Runs a script's body; any unexpected error becomes one line (the RPC being down, above all). */
export async function run(main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n")[0]! : String(error);
    if (/fetch failed|ECONNREFUSED|HTTP request failed/i.test(message))
      fail(`the chain does not answer at ${CHAIN_RPC_URL}: start the stack (npm start), or set CHAIN_RPC_URL / CHAIN_PORT`);
    fail(message);
  }
}
