import { MAX_URL_LENGTH } from "../wire/primitives.js";
import { isIP } from "node:net";

/** The longest notify_url accepted (spec: at most 512 characters). */
export const MAX_NOTIFY_URL_LENGTH = MAX_URL_LENGTH;

const NON_PUBLIC_SUFFIXES = [".localhost", ".local", ".internal", ".intranet", ".lan", ".home.arpa", ".corp", ".test", ".invalid", ".example"];

/**
 * A URL the service keeps for a merchant (notify_url, return_url): at most 512 characters and
 * parseable; the parsed URL, or why not.
 */
export function parseBoundedUrl(value: string): URL | string {
  if (value.length > MAX_NOTIFY_URL_LENGTH) return "longer than 512 characters";
  try {
    return new URL(value);
  } catch {
    return "not a URL";
  }
}

/**
 * Why a notify_url is refused, or null when it is acceptable: a public https URL on the default
 * port, with a DNS name (no IP address) as host, no user name or password, at most 512 characters.
 * Path and query are free. (Where the name resolves is checked again at every delivery.)
 */
export function notifyUrlProblem(value: string): string | null {
  const url = parseBoundedUrl(value);
  if (typeof url === "string") return url;
  if (url.protocol !== "https:") return "not https";
  if (url.port !== "") return "not the default port";
  if (url.username !== "" || url.password !== "") return "carries a user name or password";
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  // WHATWG URL parsing already turns forms like 0x7f.1 or 2130706433 into dotted IPv4.
  if (isIP(host.replace(/^\[|\]$/g, "")) !== 0) return "an IP address host";
  if (!host.includes(".")) return "not a public DNS name";
  if (host === "localhost" || NON_PUBLIC_SUFFIXES.some((s) => host.endsWith(s))) return "not a public DNS name";
  return null;
}
