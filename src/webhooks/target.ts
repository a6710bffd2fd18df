import { BlockList, isIP } from "node:net";
import { lookup } from "node:dns/promises";
import { request } from "node:https";

/** Address ranges that are never a webhook target: private, loopback, link-local, shared, reserved, documentation, multicast. */
const NON_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  NON_PUBLIC.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001::", 23],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  NON_PUBLIC.addSubnet(net, prefix, "ipv6");
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/** Whether `ip` is a public internet address (IPv4-mapped IPv6 is judged by its IPv4). */
export function isPublicAddress(ip: string, allowLoopback = false): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const address = mapped ? mapped[1]! : ip;
  const family = isIP(address) === 6 ? "ipv6" : "ipv4";
  if (allowLoopback && LOOPBACK.check(address, family)) return true;
  return !NON_PUBLIC.check(address, family);
}

export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

export interface PostOptions {
  timeoutMs: number;
  resolve: Resolver;
  /** Test-only: loopback targets count as public. Refused in production configuration. */
  allowLoopback: boolean;
  /** Test-only: extra trusted CA (the loopback receiver's self-signed certificate). */
  ca?: string;
  /** Test-only: the port to connect to instead of 443 (a loopback receiver cannot take 443). */
  port?: number;
}

/**
 * POSTs JSON to a notify_url: resolves the host once, refuses unless every address is public, then
 * connects to exactly the address it checked (no second lookup, so no DNS-rebinding window), with
 * TLS verified for the host name. Redirects are not followed. Resolves with the HTTP status.
 */
export async function postToTarget(url: string, headers: Record<string, string>, body: string, options: PostOptions): Promise<number> {
  const target = new URL(url);
  const hostname = target.hostname;
  const addresses = await options.resolve(hostname);
  if (addresses.length === 0) throw new Error("the host has no address");
  const refused = addresses.find((a) => !isPublicAddress(a.address, options.allowLoopback));
  if (refused) throw new Error(`the host resolves to a non-public address (${refused.address})`);
  const pinned = addresses[0]!;
  return new Promise<number>((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        servername: hostname,
        port: options.port ?? 443,
        path: `${target.pathname}${target.search}`,
        method: "POST",
        headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        ...(options.ca ? { ca: options.ca } : {}),
        lookup: ((_host: string, opts: { all?: boolean }, callback: (...args: unknown[]) => void) => {
          if (opts?.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
          else callback(null, pinned.address, pinned.family);
        }) as never,
        signal: AbortSignal.timeout(options.timeoutMs),
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * The delivery transport a configuration asks for: fixed DNS answers for some hosts (the demo's local
 * receiver; WEBHOOKS_RESOLVE) and a port override (WEBHOOKS_PORT_OVERRIDE). Nothing for production.
 */
export function configuredTransport(settings: { resolve: Record<string, string> | null; portOverride: number | null }): { resolve?: Resolver; port?: number } {
  const fixed = settings.resolve;
  return {
    ...(fixed ? { resolve: async (host: string) => (fixed[host] ? [{ address: fixed[host]!, family: 4 }] : systemResolver(host)) } : {}),
    ...(settings.portOverride ? { port: settings.portOverride } : {}),
  };
}
