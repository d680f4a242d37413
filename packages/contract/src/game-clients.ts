/**
 * What a game client holds and asks before it matchmakes: a namespace's public or development token (the
 * original API's `/cloud/games/{g}/namespaces/{ns}/tokens/public|development`) and the regions it may pick
 * (`GET /matchmaker/regions`). Field names are the original's (its Fern definitions), so its published
 * client reads these answers unmodified. The development token's rules are pure, for the CLI as well.
 */
import { type Static, Type } from 'typebox';
import { Text, TextMap } from './common.js';
import type { ValidationErrorItem } from './errors.js';

/** The protocols a port may name: the version config's vocabulary (PortProtocol). */
export const PORT_PROTOCOLS = ['http', 'https', 'tcp', 'tcp_tls', 'udp'] as const;
export type PortProtocol = (typeof PORT_PROTOCOLS)[number];

/** Rules of a development token's body (README "Limits"); the wire bounds below are looser so these report. */
export const DEVELOPMENT_TOKEN_LIMITS = {
  /** A DNS name's longest (RFC 1035), and more than any IP address's text. */
  hostnameMax: 253,
  /** Ports of one token, by label. */
  portsMax: 64,
  /** A port's label: as long as a version config's port labels may be. */
  labelMax: 64,
} as const;

const PortProtocolSchema = Type.Union(
  PORT_PROTOCOLS.map((p) => Type.Literal(p)),
  { description: 'http, https, tcp, tcp_tls or udp' },
);
const WirePort = Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647 });
const PortRange = Type.Object({ min: WirePort, max: WirePort });

/** `MatchmakerDevelopmentPort`: one port of the developer's machine, by label. */
export const DevelopmentPort = Type.Object({
  port: Type.Optional(WirePort),
  port_range: Type.Optional(PortRange),
  protocol: PortProtocolSchema,
});
export type DevelopmentPort = Static<typeof DevelopmentPort>;

/** `LobbyGroupRuntimeDockerPort` (the original's deprecated list form): a label and its port. */
export const DevelopmentLobbyPort = Type.Object({
  label: Text(1024),
  target_port: Type.Optional(WirePort),
  port_range: Type.Optional(PortRange),
  proxy_protocol: PortProtocolSchema,
});
export type DevelopmentLobbyPort = Static<typeof DevelopmentLobbyPort>;

const Hostname = Text(1024, { description: "the developer's machine: a host name or an IP address" });
const LobbyPorts = Type.Array(DevelopmentLobbyPort, { maxItems: 256 });

/** `CreateGameNamespaceTokenDevelopmentRequest`. */
export const CreateDevelopmentTokenBody = Type.Object({
  hostname: Hostname,
  ports: Type.Optional(TextMap(DevelopmentPort, { maxEntries: 256, keyMax: 1024 })),
  lobby_ports: Type.Optional(LobbyPorts),
});
export type CreateDevelopmentTokenBody = Static<typeof CreateDevelopmentTokenBody>;

/** `ValidateGameNamespaceTokenDevelopmentRequest`: the original's form, ports as a list. */
export const ValidateDevelopmentTokenBody = Type.Object({
  hostname: Hostname,
  lobby_ports: LobbyPorts,
});
export type ValidateDevelopmentTokenBody = Static<typeof ValidateDevelopmentTokenBody>;

/** What a development token keeps: the developer's host and its ports by label (both forms merged). */
export interface DevelopmentTarget {
  hostname: string;
  ports: Record<string, { port?: number; port_range?: { min: number; max: number }; protocol: PortProtocol }>;
}

const LABEL = /^[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?$/;
const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** A host name (RFC 1123 labels), an IPv4 address, or an IPv6 address (brackets optional). */
export function isHostOrIp(value: string): boolean {
  if (IPV4.test(value)) return true;
  const v6 = value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value;
  if (v6.includes(':')) return isIpv6(v6);
  // All-numeric dotted names are malformed addresses, not host names.
  if (/^[\d.]+$/.test(value)) return false;
  return value.split('.').every((label) => DNS_LABEL.test(label));
}

function isIpv6(value: string): boolean {
  if (!/^[0-9a-f:.]+$/i.test(value) || value.split('::').length > 2) return false;
  const groups = value.split(':');
  const last = groups.at(-1) ?? '';
  const tail = IPV4.test(last) ? 2 : 0;
  const hextets = groups.filter((g) => g !== '');
  if (hextets.slice(0, tail === 2 ? -1 : undefined).some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return false;
  const count = hextets.length - (tail === 2 ? 1 : 0) + tail;
  return value.includes('::') ? count < 8 : count === 8;
}

const inPortRange = (n: number) => Number.isInteger(n) && n >= 1 && n <= 65_535;

/**
 * Every rule a development token's host and ports break (empty: none). `ports` by label, as the create
 * body's map or the validate body's list (where a label may be repeated, which is a rule broken too).
 */
export function checkDevelopmentTarget(
  hostname: string,
  ports: readonly (readonly [label: string, port: DevelopmentPort, path: string[]])[],
): ValidationErrorItem[] {
  const out: ValidationErrorItem[] = [];
  const { hostnameMax, portsMax, labelMax } = DEVELOPMENT_TOKEN_LIMITS;
  if (hostname.length === 0) out.push({ path: ['hostname', 'empty'], message: 'hostname is empty' });
  else if (hostname.length > hostnameMax) {
    out.push({
      path: ['hostname', 'too-long'],
      message: `hostname has ${hostname.length} characters; at most ${hostnameMax}`,
    });
  } else if (!isHostOrIp(hostname)) {
    out.push({
      path: ['hostname', 'invalid'],
      message: `hostname "${hostname.slice(0, 64)}" is neither a host name nor an IP address`,
    });
  }
  if (ports.length > portsMax) {
    out.push({ path: ['ports', 'too-many'], message: `${ports.length} ports; at most ${portsMax}` });
  }
  const seen = new Set<string>();
  for (const [label, port, path] of ports.slice(0, portsMax)) {
    const at = `port "${label.slice(0, labelMax)}"`;
    if (label.length === 0 || label.length > labelMax || !LABEL.test(label)) {
      out.push({
        path: [...path, 'label-invalid'],
        message: `${at}: a label is 1-${labelMax} of a-z, 0-9, _ and -, starting and ending with a letter or digit`,
      });
    } else if (seen.has(label)) {
      out.push({ path: [...path, 'label-not-unique'], message: `${at} is named twice` });
    }
    seen.add(label);
    const hasPort = port.port !== undefined;
    const range = port.port_range;
    if (hasPort === (range !== undefined)) {
      out.push({
        path: [...path, 'port-or-range'],
        message: `${at} needs exactly one of a port number and a port range`,
      });
    }
    if (hasPort && !inPortRange(port.port as number)) {
      out.push({ path: [...path, 'port', 'out-of-range'], message: `${at}: ${port.port} is not 1-65535` });
    }
    if (
      range !== undefined &&
      (!inPortRange(range.min) || !inPortRange(range.max) || range.min > range.max)
    ) {
      out.push({
        path: [...path, 'port-range', 'invalid'],
        message: `${at}: ${range.min}-${range.max} is not a range within 1-65535 with min ≤ max`,
      });
    }
  }
  return out;
}

/** The validate body's list as labelled ports, each with the path its errors name. */
export function lobbyPortsAsPorts(list: readonly DevelopmentLobbyPort[]) {
  return list.map((p, i): [string, DevelopmentPort, string[]] => [
    p.label,
    {
      ...(p.target_port === undefined ? {} : { port: p.target_port }),
      ...(p.port_range === undefined ? {} : { port_range: p.port_range }),
      protocol: p.proxy_protocol,
    },
    ['lobby-ports', String(i)],
  ]);
}

/** The create body's map (and its list, the original's older form) as labelled ports. */
export function developmentPortsOf(body: CreateDevelopmentTokenBody) {
  const mapped = Object.entries(body.ports ?? {}).map(
    ([label, port]): [string, DevelopmentPort, string[]] => [label, port, ['ports', label.slice(0, 64)]],
  );
  return [...mapped, ...lobbyPortsAsPorts(body.lobby_ports ?? [])];
}

/** `RegionInfo` of the original's matchmaker: what a player picks a region by. */
export const RegionInfo = Type.Object({
  region_id: Type.String({ maxLength: 32, description: 'the region name id (GCM_REGIONS)' }),
  provider_display_name: Type.String({ maxLength: 256 }),
  region_display_name: Type.String({ maxLength: 256 }),
  datacenter_coord: Type.Object(
    { latitude: Type.Number(), longitude: Type.Number() },
    { description: 'not known to the service: 0, 0 (docs/interface-notes.md)' },
  ),
  datacenter_distance_from_client: Type.Object(
    { kilometers: Type.Number(), miles: Type.Number() },
    { description: 'not estimated by the service: 0 (docs/interface-notes.md)' },
  ),
});
export type RegionInfo = Static<typeof RegionInfo>;

/** `GET /matchmaker/regions` (`ListRegionsResponse`). */
export const ListRegionsResponse = Type.Object({ regions: Type.Array(RegionInfo, { maxItems: 1024 }) });
export type ListRegionsResponse = Static<typeof ListRegionsResponse>;
