import { BlockList, isIP } from 'node:net';

/**
 * The kinds of client address the namespace's mm-config caps apart from the plain per-client cap: its
 * `max_players_per_client_hosting`, `_proxy`, `_tor` and `_vpn`. The interface names no source that tells
 * which addresses are which; the service takes one through `AddressClassifier` (docs/interface-notes.md).
 */
export const ADDRESS_CLASSES = ['hosting', 'proxy', 'tor', 'vpn'] as const;
export type AddressClass = (typeof ADDRESS_CLASSES)[number];

/** Which classes a client address belongs to: none for an ordinary address. */
export interface AddressClassifier {
  classesOf(address: string): readonly AddressClass[];
}

/** Without a source every address is ordinary: only max_players_per_client applies. */
export const NO_ADDRESS_CLASSES: AddressClassifier = { classesOf: () => [] };

/** Entries (addresses and CIDR blocks) in one file, all classes together: bounds start-up time and memory. */
export const ADDRESS_CLASS_ENTRIES_MAX = 1_000_000;

/**
 * A classifier from lists of addresses and CIDR blocks per class, as JSON:
 * `{"tor": ["198.51.100.7", "2001:db8::/32"], "hosting": ["203.0.113.0/24"]}` — what an operator builds
 * from a Tor exit list or a hosting provider's published ranges. Answers the classifier, or the first
 * problem, naming the class and entry.
 */
export function parseAddressClasses(text: string): AddressClassifier | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problem: 'is not JSON' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { problem: `must be an object of ${ADDRESS_CLASSES.join(', ')} lists` };
  }
  const lists = new Map<AddressClass, BlockList>();
  let entries = 0;
  for (const [name, list] of Object.entries(parsed)) {
    if (!(ADDRESS_CLASSES as readonly string[]).includes(name)) {
      return { problem: `has "${name.slice(0, 40)}": the classes are ${ADDRESS_CLASSES.join(', ')}` };
    }
    if (!Array.isArray(list)) return { problem: `"${name}" must be a list of addresses and CIDR blocks` };
    entries += list.length;
    if (entries > ADDRESS_CLASS_ENTRIES_MAX) {
      return { problem: `has more than ${ADDRESS_CLASS_ENTRIES_MAX} entries` };
    }
    const blocks = new BlockList();
    for (const entry of list) {
      const why = addEntry(blocks, entry);
      if (why !== undefined) return { problem: `"${name}": ${why}` };
    }
    lists.set(name as AddressClass, blocks);
  }
  return {
    classesOf(given) {
      // A dual-stack listener sees an IPv4 client as ::ffff:a.b.c.d; the lists name it as a.b.c.d.
      const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(given)?.[1];
      const address = mapped ?? given;
      const family = isIP(address);
      if (family === 0) return [];
      const type = family === 4 ? 'ipv4' : 'ipv6';
      return ADDRESS_CLASSES.filter((c) => lists.get(c)?.check(address, type) === true);
    },
  };
}

function addEntry(blocks: BlockList, entry: unknown): string | undefined {
  const shown = JSON.stringify(entry)?.slice(0, 60) ?? String(entry);
  if (typeof entry !== 'string') return `${shown} is not a string`;
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return `${shown} is not an address or CIDR block`;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (prefix === undefined) {
    blocks.addAddress(address, type);
    return undefined;
  }
  const bits = Number(prefix);
  if (!/^\d{1,3}$/.test(prefix) || bits > (family === 4 ? 32 : 128)) {
    return `${shown} has a bad prefix length`;
  }
  blocks.addSubnet(address, bits, type);
  return undefined;
}
