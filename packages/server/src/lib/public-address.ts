import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Addresses a tenant's URL must never make the service call (webhooks): loopback, private, link-local,
 * shared (carrier-grade NAT), unspecified, multicast and reserved ranges, of IPv4 and IPv6. A hostile
 * tenant would otherwise point an endpoint at the metadata service or a database beside the service.
 */
const INTERNAL = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  INTERNAL.addSubnet(net, prefix, 'ipv4');
}
// IPv6 forms that carry an IPv4 address (6to4, NAT64, ...) are judged by that address: embeddedIpv4s.
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  // NAT64 for local use (RFC 8215): the operator's own translator, whose IPv4 position is its choice.
  ['64:ff9b:1::', 48],
  ['fc00::', 7],
  ['fe80::', 10],
  // Site-local (deprecated, RFC 3879), still routed inside some networks.
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  INTERNAL.addSubnet(net, prefix, 'ipv6');
}

/** `a.b.c.d` from two 16-bit groups of an IPv6 address. */
function ipv4Of(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/**
 * The IPv4 addresses an IPv6 address (its eight 16-bit groups) carries, in each form whose packets end up
 * at that IPv4 host, or at a relay or translator that forwards them there: so `[2002:7f00:1::1]` is as much
 * loopback as `127.0.0.1`. One address may match several forms (`::7f00:1` is IPv4-compatible and nothing
 * else; a 6to4 address with an ISATAP interface id carries two), and each IPv4 found counts.
 */
export function embeddedIpv4s(groups: readonly number[]): string[] {
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0] = groups;
  const zero = (from: number, to: number) => groups.slice(from, to).every((x) => x === 0);
  const found: string[] = [];
  // IPv4-compatible ::/96 (deprecated, RFC 4291); :: and ::1 are in it too, as 0.0.0.0 and 0.0.0.1.
  if (zero(0, 6)) found.push(ipv4Of(g, h));
  // IPv4-mapped ::ffff:0:0/96.
  if (zero(0, 5) && f === 0xffff) found.push(ipv4Of(g, h));
  // IPv4-translated ::ffff:0:0:0/96 (SIIT, RFC 6145).
  if (zero(0, 4) && e === 0xffff && f === 0) found.push(ipv4Of(g, h));
  // NAT64's well-known prefix 64:ff9b::/96 (RFC 6052).
  if (a === 0x64 && b === 0xff9b && zero(2, 6)) found.push(ipv4Of(g, h));
  // 6to4 2002::/16 (RFC 3056): the IPv4 follows the prefix.
  if (a === 0x2002) found.push(ipv4Of(b, c));
  // Teredo 2001::/32 (RFC 4380): the server's IPv4, and the client's with every bit flipped.
  if (a === 0x2001 && b === 0) found.push(ipv4Of(c, d), ipv4Of(g ^ 0xffff, h ^ 0xffff));
  // ISATAP (RFC 5214), under any prefix: the interface id 0:5efe:a.b.c.d, its u/g bits set or not.
  if ((e & 0xfcff) === 0 && f === 0x5efe) found.push(ipv4Of(g, h));
  return found;
}

/**
 * True for an IP address (v4 or v6, any spelling Node accepts) in a range no tenant may reach, or an IPv6
 * address carrying an IPv4 address that is (embeddedIpv4s).
 */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return INTERNAL.check(address, 'ipv4');
  if (family !== 6) return false;
  let groups: number[];
  try {
    groups = ipaddr.IPv6.parse(address).parts;
  } catch {
    // Node calls it IPv6 and ipaddr.js cannot read it: nothing to judge it by, so it is refused.
    return true;
  }
  // The groups, spelled without a zone (`%eth0`) or dotted quad, which BlockList may not read.
  if (INTERNAL.check(groups.map((x) => x.toString(16)).join(':'), 'ipv6')) return true;
  return embeddedIpv4s(groups).some((v4) => INTERNAL.check(v4, 'ipv4'));
}

/** Names that resolve to this machine or the local network whatever DNS says. */
export function isInternalName(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return host === 'localhost' || host.endsWith('.localhost') || host === 'local' || host.endsWith('.local');
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http.request that refuses internal addresses after resolving, so a name that resolves
 * (or is re-pointed, DNS rebinding) to an internal address is refused at connect time, not only when the
 * URL is saved. With `allowInternal` it is plain dns.lookup (a receiver on the operator's own network).
 */
export function publicLookup(allowInternal: boolean) {
  return (hostname: string, options: object, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err !== null) {
        callback(err, []);
        return;
      }
      const list = addresses as LookupAddress[];
      const refused = allowInternal ? undefined : list.find((a) => isInternalAddress(a.address));
      if (refused !== undefined) {
        const denied: NodeJS.ErrnoException = new Error(
          `${hostname} resolves to ${refused.address}, an internal address`,
        );
        denied.code = 'EADDRNOTPUBLIC';
        callback(denied, []);
        return;
      }
      if ((options as { all?: boolean }).all === true) callback(null, list);
      else callback(null, list[0]?.address ?? '', list[0]?.family);
    });
  };
}
