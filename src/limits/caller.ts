import { isIPv4, isIPv6 } from "node:net";

/**
 * The caller a limit counts: an IPv4 address, or an IPv6 /64 (one host is handed a whole /64, so
 * each of its 2^64 addresses is the same caller), or with `groups` 3 a /48 (one site's allocation:
 * the relayer's budget counts a site as one caller). An IPv4-mapped IPv6 address is its IPv4
 * address; a prefix this function wrote (`…::/64`) is read as its address. Anything else (no
 * address, a test's name) counts as itself.
 */
export function callerOf(ip: string | undefined, groups: 3 | 4 = 4): string {
  if (ip === undefined || ip === "") return "unknown";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (isIPv4(ip)) return ip;
  const address = ip.replace(/\/\d+$/, "").split("%")[0]!;
  if (!isIPv6(address)) return ip;
  return `${firstGroups(address, groups)}::/${groups * 16}`;
}

/** The first `count` groups of an IPv6 address, lowercase without leading zeros. */
function firstGroups(ip: string, count: number): string {
  const [head = "", tail] = ip.toLowerCase().split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  // An embedded IPv4 tail takes two groups' room; it never reaches the first four.
  const width = (groups: string[]) => groups.reduce((n, g) => n + (g.includes(".") ? 2 : 1), 0);
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - width(left) - width(right)).fill("0"), ...right];
  return groups
    .slice(0, count)
    .map((g) => (g.includes(".") ? "0" : g.replace(/^0+(?=.)/, "")))
    .join(":");
}
