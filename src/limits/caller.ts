import { isIPv4, isIPv6 } from "node:net";

/**
 * The caller a limit counts: an IPv4 address, or an IPv6 /64 (one host is handed a whole /64, so
 * each of its 2^64 addresses is the same caller). An IPv4-mapped IPv6 address is its IPv4 address.
 * Anything else (no address, a test's name) counts as itself.
 */
export function callerOf(ip: string | undefined): string {
  if (ip === undefined || ip === "") return "unknown";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (isIPv4(ip)) return ip;
  if (!isIPv6(ip)) return ip;
  return `${firstFourGroups(ip.split("%")[0]!)}::/64`;
}

/** The first 64 bits of an IPv6 address, as four lowercase groups without leading zeros. */
function firstFourGroups(ip: string): string {
  const [head = "", tail] = ip.toLowerCase().split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  // An embedded IPv4 tail takes two groups' room; it never reaches the first four.
  const width = (groups: string[]) => groups.reduce((n, g) => n + (g.includes(".") ? 2 : 1), 0);
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - width(left) - width(right)).fill("0"), ...right];
  return groups
    .slice(0, 4)
    .map((g) => (g.includes(".") ? "0" : g.replace(/^0+(?=.)/, "")))
    .join(":");
}
