import {
  BUILD_HOW_TO,
  configShapeErrors,
  locateConfigPath,
  regionsNamedIn,
  type ValidationErrorItem,
  type VersionConfig,
  validateVersion,
  yamlConfigNodes,
} from '@gcm/contract';
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';

/** One thing wrong with the form, at the place it belongs. */
export interface Problem {
  /** Which field: the version's name, or the configuration text. */
  field: 'display_name' | 'config';
  /** Where in the config, as its own keys (`matchmaker.game_modes.default.max_players`), or what kind. */
  where: string;
  message: string;
  /** 1-based, in the config text. */
  line?: number;
  column?: number;
  /** Character offset in the config text, for the cursor. */
  offset?: number;
  /** Where the node the problem is about ends, for the editor's mark. */
  end?: number;
  /** syntax: the YAML parser; offline: the contract's validator, as typed; service: the service's answer. */
  source: 'syntax' | 'offline' | 'service';
}

/** What the validator is told about the game: the same facts the service uses, where the page has them. */
export interface GameFacts {
  /** Region name ids the service offers; undefined (not loaded) counts every region the config names. */
  regions: readonly string[] | undefined;
  existingDisplayNames: readonly string[];
  hostNetworkingEnabled: boolean;
}

export interface Checked {
  /** The parsed config, when the text is YAML at all. */
  value: unknown;
  problems: Problem[];
  /** Places the problems of a service's answer in the same text. */
  place(items: readonly ValidationErrorItem[], source: Problem['source']): Problem[];
}

const NODES = yamlConfigNodes<Node>({ isMap, isSeq, isScalar });
const VERSION_NAME = ['display-name'];

/**
 * Parses the text as YAML (JSON is YAML too) and validates it with the contract's own validator: the
 * schema first, then the rules. Every problem carries its line and column, found from the YAML nodes.
 */
export function checkVersion(text: string, displayName: string, facts: GameFacts): Checked {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number | undefined, end?: number) => {
    if (offset === undefined) return {};
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col, offset, ...(end === undefined ? {} : { end }) };
  };
  const place = (items: readonly ValidationErrorItem[], source: Problem['source']): Problem[] =>
    items.map((item) => {
      if (item.path[0] === VERSION_NAME[0]) {
        return { field: 'display_name', where: 'display_name', message: item.message, source };
      }
      const root = doc.contents;
      const found = root === null ? undefined : locateConfigPath<Node>(root, item.path, NODES);
      return {
        field: 'config',
        where: found === undefined || found.keys.length === 0 ? 'the config' : found.keys.join('.'),
        message: inDashboardTerms(item.message),
        source,
        ...at(found?.node.range?.[0], found?.node.range?.[1]),
      };
    });

  const nameOnly = (config: VersionConfig) =>
    place(validateVersion({ display_name: displayName, config }, offlineFacts(facts, config)), 'offline');
  if (doc.errors.length > 0) {
    const syntax: Problem[] = doc.errors.map((error) => ({
      field: 'config',
      where: 'YAML syntax',
      message: error.message.split('\n')[0] ?? error.message,
      source: 'syntax',
      ...at(error.pos[0], error.pos[1]),
    }));
    return { value: undefined, problems: [...nameOnly({}), ...syntax], place };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    const problem: Problem = {
      field: 'config',
      where: 'YAML syntax',
      message: err instanceof Error ? err.message : String(err),
      source: 'syntax',
    };
    return { value: undefined, problems: [...nameOnly({}), problem], place };
  }
  const shape = configShapeErrors(value);
  if (shape.length > 0) {
    // The rules take a config of the right shape only; the name is checked all the same.
    return { value, problems: [...nameOnly({}), ...place(shape, 'offline')], place };
  }
  return { value, problems: nameOnly(value as VersionConfig), place };
}

/** Where the page gets a build id: its own picker and Builds page, not the API calls the service names. */
function inDashboardTerms(message: string): string {
  return message.replace(
    BUILD_HOW_TO,
    'choose one with "Insert a build" above the editor (upload one on the Builds page first)',
  );
}

function offlineFacts(facts: GameFacts, config: VersionConfig) {
  return {
    regions: facts.regions ?? regionsNamedIn(config),
    existingDisplayNames: facts.existingDisplayNames,
    hostNetworkingEnabled: facts.hostNetworkingEnabled,
    // The page has no list of builds: the service checks every image_id when the version is created.
    buildIds: undefined,
  };
}
