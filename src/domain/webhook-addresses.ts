import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** One address a host name resolves to, as `dns.lookup` with `all` answers. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (tests hand in their own answers). */
export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

/** How webhook URLs are checked: by the resolver, and whether private addresses are allowed (`WEBHOOK_ALLOW_PRIVATE=1`). */
export interface WebhookPolicy {
  allowPrivate: boolean;
  lookup?: HostLookup;
}

export const systemLookup: HostLookup = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

// Everything that is not a public unicast address: private, loopback, link-local, shared
// (CGNAT), documentation, benchmark, multicast, reserved and "this network" ranges, in both
// families. IPv4-mapped (`::ffff:a.b.c.d`) and NAT64 addresses are judged by the IPv4 inside.
const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['2001::', 23],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, bits, 'ipv6');
}

/** The IPv4 address an IPv6 one carries (`::ffff:a.b.c.d`, `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`), if any. */
function embeddedIpv4(address: string): string | undefined {
  const groups = expandIpv6(address);
  if (!groups) return undefined;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  if (zeros(0, 5) && (groups[5] === 0xffff || groups[5] === 0)) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x2002) return v4(groups[1]!, groups[2]!);
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail included), or undefined. */
function expandIpv6(address: string): number[] | undefined {
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const part = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const left = part(head);
  const right = tail === undefined ? [] : part(tail);
  const fill = 8 - left.length - right.length;
  if (fill < 0 || (tail === undefined && fill !== 0)) return undefined;
  const groups = [...left, ...Array<number>(fill).fill(0), ...right];
  return groups.some((g) => Number.isNaN(g)) ? undefined : groups;
}

/** True unless `address` (an IP literal) is a public unicast address. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) return blocked.check(bare, 'ipv4');
  if (family !== 6) return true;
  const inner = embeddedIpv4(bare);
  if (inner !== undefined && blocked.check(inner, 'ipv4')) return true;
  return blocked.check(bare.replace(/%.*$/, ''), 'ipv6');
}

/** A webhook URL that reaches a private, loopback or link-local address. */
export class PrivateWebhookAddress extends Error {
  constructor() {
    super('url must reach a public address: private, loopback and link-local addresses are refused.');
  }
}

/**
 * The addresses of a webhook URL's host, each checked: an IP literal as it is, a name after
 * resolving it (none when it does not resolve). Any private, loopback or link-local address
 * among them refuses the URL (unless the policy allows private addresses), so a name with one
 * public and one private address is refused too. A delivery connects to the first address
 * returned, never to the name again, so a second resolution (DNS rebinding) cannot swap in
 * another address.
 */
export async function resolveWebhookHost(url: URL, policy: WebhookPolicy): Promise<ResolvedAddress[]> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host);
  let addresses: ResolvedAddress[];
  if (literal !== 0) addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  else {
    try {
      addresses = await (policy.lookup ?? systemLookup)(host);
    } catch {
      addresses = [];
    }
  }
  if (!policy.allowPrivate && addresses.some((a) => isPrivateAddress(a.address))) throw new PrivateWebhookAddress();
  return addresses;
}
