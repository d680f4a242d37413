/**
 * The contract's `locateConfigPath`, which the CLI and the dashboard's editor use to show a validation
 * error at its place in a YAML config: the validator's own paths, run through real YAML documents.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  configShapeErrors,
  locateConfigPath,
  type VersionConfig,
  validateVersion,
  yamlConfigNodes,
} from '@gcm/contract';
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';

const NODES = yamlConfigNodes<Node>({ isMap, isSeq, isScalar });

/** Every error of `text` (validated with the regions given) as `line:column keys | last path segment`. */
function placed(text: string, regions: string[] = ['eu']): string[] {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  const config = doc.toJS() as VersionConfig;
  const errors = validateVersion(
    { display_name: '', config },
    { regions, existingDisplayNames: [], hostNetworkingEnabled: true },
  );
  return errors.map((error) => {
    const found = locateConfigPath(doc.contents as Node, error.path, NODES);
    const { line, col } = lineCounter.linePos(found.node.range?.[0] ?? 0);
    return `${line}:${col} ${found.keys.join('.')} | ${error.path.at(-1)}`;
  });
}

describe('locating a validation error in a YAML config', () => {
  it('finds a value, a key that is the problem, and a renamed or skipped level', () => {
    const text = `matchmaker:
  game_modes:
    default:
      max_players: 300
      max_playrs: 3
      docker:
        image_id: build
        env:
          LOBBY_ID: x
        ports:
          game:
            port: 99999
      actions:
        find:
          enabled: true
          verification:
            url: http://localhost/
            headers: {}
`;
    assert.deepEqual(placed(text), [
      '1:1  | too-short',
      '5:7 matchmaker.game_modes.default.max_playrs | unknown-key',
      // Direct and party counts default to max_players: one error, where that is set.
      '4:20 matchmaker.game_modes.default.max_players | too-high',
      '9:11 matchmaker.game_modes.default.docker.env.LOBBY_ID | conflicts-with-default',
      '12:19 matchmaker.game_modes.default.docker.ports.game.port | port-out-of-range',
      '17:18 matchmaker.game_modes.default.actions.find.verification.url | invalid-ip',
    ]);
  });

  it('finds what a game mode inherits from the matchmaker there, never in another game mode', () => {
    const text = `matchmaker:
  max_players: 300
  regions:
    atlantis: {}
  container:
    image_id: build
    ports:
      game:
        port: 0
  game_modes:
    a: {}
    ports: {}
`;
    const found = placed(text).filter((line) => !line.endsWith('too-short'));
    assert.deepEqual(found, [
      '2:16 matchmaker.max_players | too-high',
      '4:5 matchmaker.regions.atlantis | invalid',
      '9:15 matchmaker.container.ports.game.port | port-out-of-range',
      '2:16 matchmaker.max_players | too-high',
      '4:5 matchmaker.regions.atlantis | invalid',
      '9:15 matchmaker.container.ports.game.port | port-out-of-range',
    ]);
  });

  it("marks an unknown build at the image_id it names, the game mode's own or the one it inherits", () => {
    const errorsAt = (text: string) => {
      const lineCounter = new LineCounter();
      const doc = parseDocument(text, { lineCounter });
      const config = doc.toJS() as VersionConfig;
      const facts = { regions: [], existingDisplayNames: [], hostNetworkingEnabled: true };
      return validateVersion({ display_name: 'v', config }, { ...facts, buildIds: new Set(['good']) }).map(
        (error) => {
          const found = locateConfigPath(doc.contents as Node, error.path, NODES);
          const { line, col } = lineCounter.linePos(found.node.range?.[0] ?? 0);
          return `${line}:${col} ${found.keys.join('.')} | ${error.path.at(-1)}`;
        },
      );
    };
    assert.deepEqual(
      errorsAt(`matchmaker:
  game_modes:
    a:
      container:
        image_id: gone
    b:
      docker:
        image_id: ""
    c: {}
  container:
    image_id: also-gone
`),
      [
        '5:19 matchmaker.game_modes.a.container.image_id | build-not-found',
        '8:19 matchmaker.game_modes.b.docker.image_id | no-build',
        '11:15 matchmaker.container.image_id | build-not-found',
      ],
    );
  });

  it('reports a shape error once, without the "must be null" of a nullable member', () => {
    const errors = configShapeErrors({
      matchmaker: { max_players: 'eight', game_modes: { a: { actions: { find: {} } } } },
    });
    assert.deepEqual(
      errors.map((e) => e.message),
      [
        'matchmaker.game_modes.a.actions.find must have required properties enabled',
        'matchmaker.max_players must be integer',
      ],
    );
    const doc = parseDocument('matchmaker:\n  max_players: eight\n');
    const at = locateConfigPath(doc.contents as Node, ['config', 'matchmaker', 'max_players'], NODES);
    assert.deepEqual(at.keys, ['matchmaker', 'max_players']);
  });
});
