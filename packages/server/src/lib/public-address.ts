import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

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
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  INTERNAL.addSubnet(net, prefix, 'ipv6');
}

/** The IPv4 address an IPv4-mapped or -compatible IPv6 address carries (::ffff:7f00:1 is 127.0.0.1). */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^::(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted !== null) return dotted[1];
  const hex = /^::(?:ffff:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex === null) return undefined;
  const high = Number.parseInt(hex[1] ?? '0', 16);
  const low = Number.parseInt(hex[2] ?? '0', 16);
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/** True for an IP address (v4 or v6, any spelling Node accepts) in a range no tenant may reach. */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return INTERNAL.check(address, 'ipv4');
  if (family !== 6) return false;
  const v4 = embeddedIpv4(address);
  if (v4 !== undefined) return INTERNAL.check(v4, 'ipv4');
  return INTERNAL.check(address, 'ipv6');
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
