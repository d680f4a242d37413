/**
 * Where in a config document a validation error belongs, for a CLI that prints `file:line:column` and an
 * editor that marks the line. Error paths (validate.ts) name the document's keys only loosely: segments are
 * kebab-case (`game-modes` for `game_modes`), the last one is the rule broken (`port-out-of-range`), some
 * group values without a key of their own (`player-counts`) or name a key by another name (`env-vars` for
 * `env`), a rule may skip a level the document has (`ports` under `container`), and a game mode's value may
 * be the matchmaker's, which it inherits. So the walk goes as deep as the document lets it and stops there:
 * the place is the deepest node found. It walks the parser's own nodes through `ConfigNodes`, so the
 * contract depends on no parser; `yamlConfigNodes` makes one from the `yaml` package's type guards.
 */

/** One key of a map node: its text, the node of the key itself, and the node of its value. */
export interface ConfigPair<N> {
  readonly key: string;
  readonly keyNode: N;
  readonly value: N | undefined;
}

/** How to look into a parsed document's nodes. */
export interface ConfigNodes<N> {
  /** The keys of a map node; undefined for any other node. */
  pairs(node: N): readonly ConfigPair<N>[] | undefined;
  /** The items of a sequence node; undefined for any other node. */
  items(node: N): readonly (N | undefined)[] | undefined;
}

export interface ConfigLocation<N> {
  /** The node to show the error at: a value, or the key itself where the key is the problem. */
  readonly node: N;
  /** The document's own keys (and list indexes) from the root to `node`: `matchmaker.game_modes.default`. */
  readonly keys: readonly string[];
}

/** Segments that name a key of the document by another name, or a place below it. */
const RENAMED: Readonly<Record<string, readonly string[]>> = {
  'env-vars': ['env'],
  'max-players-normal': ['max_players'],
  'max-players-direct': ['max_players_direct'],
  'max-players-party': ['max_players_party'],
  'find-config': ['actions', 'find'],
  'join-config': ['actions', 'join'],
  'create-config': ['actions', 'create'],
  'verification-config': ['verification'],
  // A build rule is about the image_id a game mode runs (its own, else the matchmaker's): shown there.
  'build-not-found': ['image_id'],
  'no-build': ['image_id'],
};
/** Keys whose value, when not set, is another key's (direct and party player counts default to max_players). */
const DEFAULTS_TO: Readonly<Record<string, string>> = {
  max_players_direct: 'max_players',
  max_players_party: 'max_players',
};
/** Segments that only group errors: the document has no key for them. */
const GROUPS = new Set(['player-counts']);

const isStarred = (segment: string) =>
  segment.length >= 2 && segment.startsWith('*') && segment.endsWith('*');

/** The document keys one segment stands for. */
function keysOf(segment: string, last: boolean): readonly string[] {
  if (isStarred(segment)) return [segment.slice(1, -1)];
  const renamed = RENAMED[segment];
  if (renamed !== undefined) return renamed;
  // `routes-meta`: a rule about the routes as a whole.
  if (segment.endsWith('-meta')) return [segment.slice(0, -'-meta'.length)];
  // The last segment names the rule (`port-out-of-range`); its first word is often the key at fault.
  return [last ? (segment.split('-')[0] ?? segment) : segment];
}

interface Step<N> {
  pair: ConfigPair<N>;
  keys: string[];
}

/** `key` in a map node, or one map below it (a rule's path may skip a level); `skip` keys are not entered. */
function findKey<N>(
  nodes: ConfigNodes<N>,
  node: N,
  key: string,
  skip: readonly string[] = [],
): Step<N> | undefined {
  const pairs = nodes.pairs(node);
  if (pairs === undefined) return undefined;
  const candidates = [key, key.replace(/-/g, '_')];
  const own = pairs.find((pair) => candidates.includes(pair.key));
  if (own !== undefined) return { pair: own, keys: [own.key] };
  for (const outer of pairs) {
    if (outer.value === undefined || skip.includes(outer.key)) continue;
    const inner = nodes.pairs(outer.value)?.find((pair) => candidates.includes(pair.key));
    if (inner !== undefined) return { pair: inner, keys: [outer.key, inner.key] };
  }
  return undefined;
}

/**
 * The place of the error at `path` in the document whose root is `root`: the deepest node the path leads
 * to, the root when it leads nowhere (as for `display-name`, which is not in the config). A path's leading
 * `config` is the document's root unless the document itself has a `config` key.
 */
export function locateConfigPath<N>(
  root: N,
  path: readonly string[],
  nodes: ConfigNodes<N>,
): ConfigLocation<N> {
  const rootHasConfig = nodes.pairs(root)?.some((pair) => pair.key === 'config') === true;
  const rest = path[0] === 'config' && !rootHasConfig ? path.slice(1) : path;
  let node = root;
  let keys: string[] = [];
  let found: ConfigLocation<N> = { node: root, keys: [] };
  // A game mode's node, and the matchmaker's, whose values the game mode inherits where it has none.
  let inherits: { gameMode: N; node: N; keys: string[] } | undefined;
  let matchmaker: { node: N; keys: string[] } | undefined;

  walk: for (const [index, segment] of rest.entries()) {
    if (GROUPS.has(segment)) continue;
    const starred = isStarred(segment);
    if (segment === 'game-modes') matchmaker = { node, keys };
    for (const key of keysOf(segment, index === rest.length - 1)) {
      let next: N | undefined;
      let nextKeys: string[];
      const items = nodes.items(node);
      if (items !== undefined && /^\d+$/.test(key)) {
        next = items[Number(key)];
        nextKeys = [...keys, key];
      } else {
        let step: Step<N> | undefined;
        let base = keys;
        for (let name: string | undefined = key; step === undefined && name !== undefined; ) {
          step = findKey(nodes, node, name);
          base = keys;
          if (step === undefined && inherits !== undefined && node === inherits.gameMode) {
            // Not the game mode's own: the matchmaker's (but never another game mode's).
            step = findKey(nodes, inherits.node, name, ['game_modes']);
            base = inherits.keys;
          }
          name = DEFAULTS_TO[name];
        }
        if (step === undefined) break walk;
        // A key that is the problem itself (unknown, or a map key of the person's): point at the key.
        if (starred) found = { node: step.pair.keyNode, keys: [...base, ...step.keys] };
        next = step.pair.value;
        nextKeys = [...base, ...step.keys];
      }
      if (next === undefined) break walk;
      node = next;
      keys = nextKeys;
      if (!starred) found = { node, keys };
    }
    if (starred && matchmaker !== undefined && inherits === undefined)
      inherits = { ...matchmaker, gameMode: node };
  }
  return found;
}

/** The type guards of the `yaml` package (`import { isMap, isScalar, isSeq } from 'yaml'`). */
export interface YamlGuards {
  isMap(node: unknown): node is { items: readonly { key: unknown; value: unknown }[] };
  isSeq(node: unknown): node is { items: readonly unknown[] };
  isScalar(node: unknown): node is { value: unknown };
}

/**
 * `ConfigNodes` over the nodes of a `yaml` document (`parseDocument(text).contents`). Keys that are not
 * scalars (a map as a key) are not walked into.
 */
export function yamlConfigNodes<N extends object>(yaml: YamlGuards): ConfigNodes<N> {
  const asNode = (value: unknown) => (typeof value === 'object' && value !== null ? (value as N) : undefined);
  return {
    pairs(node) {
      if (!yaml.isMap(node)) return undefined;
      return node.items.flatMap((item) =>
        yaml.isScalar(item.key)
          ? [{ key: String(item.key.value), keyNode: item.key as N, value: asNode(item.value) }]
          : [],
      );
    },
    items(node) {
      return yaml.isSeq(node) ? node.items.map(asNode) : undefined;
    },
  };
}
