/**
 * Hosting, proxy, Tor and VPN client addresses (issue 37's "Limits"): the interface names no source that
 * says which addresses are which, so the service takes one through `AddressClassifier`; the built-in one
 * is a file of addresses and CIDR blocks per class (GCM_ADDRESS_CLASSES_FILE). Find counts a classed
 * address against its class's mm-config cap and says which class refused it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ConfigError, loadConfig } from '../../src/config.js';
import { parseAddressClasses } from '../../src/lib/address-classes.js';
import { createGameWorld } from '../helpers/api-world.js';
import { assertError } from '../helpers/error-answer.js';
import { mintPublicToken, seedRuntimeLobby, switchToRuntimeVersion } from '../helpers/runtime-lobbies.js';
import { startTestService, type TestService } from '../helpers/service.js';

const LISTS = {
  tor: ['198.51.100.7', '2001:db8:7::/48'],
  vpn: ['203.0.113.0/24'],
  hosting: ['203.0.113.128/25', '192.0.2.0/24'],
};

describe('address class lists', () => {
  it('put an address in every class whose list holds it, by address or block, IPv4-mapped too', () => {
    const classifier = parseAddressClasses(JSON.stringify(LISTS));
    assert.ok(!('problem' in classifier));
    assert.deepEqual(classifier.classesOf('198.51.100.7'), ['tor']);
    assert.deepEqual(classifier.classesOf('::ffff:198.51.100.7'), ['tor']);
    assert.deepEqual(classifier.classesOf('198.51.100.8'), []);
    assert.deepEqual(classifier.classesOf('2001:db8:7:1::5'), ['tor']);
    assert.deepEqual(classifier.classesOf('203.0.113.5'), ['vpn']);
    assert.deepEqual(classifier.classesOf('203.0.113.200'), ['hosting', 'vpn']);
    assert.deepEqual(classifier.classesOf('not an address'), []);
  });

  it('refuse what is not a list of addresses and blocks of the four classes, naming the entry', () => {
    const problems: [unknown, RegExp][] = [
      ['nope', /not JSON/],
      [[], /must be an object/],
      [{ residential: [] }, /"residential": the classes are hosting, proxy, tor, vpn/],
      [{ tor: '198.51.100.7' }, /"tor" must be a list/],
      [{ tor: ['198.51.100.300'] }, /"tor": "198.51.100.300" is not an address/],
      [{ vpn: ['10.0.0.0/33'] }, /"vpn": "10.0.0.0\/33" has a bad prefix length/],
      [{ vpn: ['10.0.0.0/8/1'] }, /is not an address or CIDR block/],
      [{ proxy: [7] }, /"proxy": 7 is not a string/],
    ];
    for (const [lists, problem] of problems) {
      const text = typeof lists === 'string' ? lists : JSON.stringify(lists);
      const parsed = parseAddressClasses(text);
      assert.ok('problem' in parsed, text);
      assert.match(parsed.problem, problem);
    }
  });
});

describe('GCM_ADDRESS_CLASSES_FILE', () => {
  let dir: string;
  let svc: TestService;
  let token: string;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'gcm-address-classes-'));
    const file = path.join(dir, 'classes.json');
    writeFileSync(file, JSON.stringify(LISTS));
    svc = await startTestService({ env: { GCM_ADDRESS_CLASSES_FILE: file } });
    const world = await createGameWorld(svc, 'classed');
    const versionId = await switchToRuntimeVersion(svc, world, { min: 0, max: 0 });
    const mm = await svc.call(
      'POST',
      `/cloud/games/${world.gameId}/namespaces/${world.namespaceId}/mm-config`,
      {
        body: { lobby_count_max: 10, max_players: 2 },
      },
    );
    assert.ok(mm.statusCode < 300, mm.body);
    token = await mintPublicToken(svc, world);
    await seedRuntimeLobby(
      svc,
      { namespaceId: world.namespaceId, versionId },
      { runState: 'ready', region: 'lnd-atl', maxPlayers: 32 },
    );
  });
  after(async () => {
    await svc?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const findFrom = (address: string): Promise<LightMyRequestResponse> =>
    svc.app.inject({
      method: 'POST',
      url: '/matchmaker/lobbies/find',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ game_modes: ['default'], prevent_auto_create_lobby: true }),
      remoteAddress: address,
    });

  it("caps a classed address at its class's cap and says which; an ordinary one at max_players_per_client", async () => {
    for (const address of ['198.51.100.7', '198.51.100.9']) {
      for (let i = 0; i < 2; i += 1) assert.equal((await findFrom(address)).statusCode, 200);
    }
    const tor = assertError<{ code: string; message: string; metadata: unknown }>(
      await findFrom('198.51.100.7'),
      429,
      'MATCHMAKER_TOO_MANY_PLAYERS_FROM_CLIENT',
    );
    assert.deepEqual(tor.metadata, { max: 2, address_class: 'tor' });
    assert.match(tor.message, /tor address.*max_players_per_client_tor \(2\)/);
    const plain = assertError<{ code: string; metadata: unknown }>(
      await findFrom('198.51.100.9'),
      429,
      'MATCHMAKER_TOO_MANY_PLAYERS_FROM_CLIENT',
    );
    assert.deepEqual(plain.metadata, { max: 2 });
  });

  it('is read at start: a file that cannot be read or parsed stops the service with its name', () => {
    const base = { GCM_DATA_DIR: '/tmp/unused' };
    assert.throws(
      () => loadConfig({ ...base, GCM_ADDRESS_CLASSES_FILE: path.join(dir, 'missing.json') }),
      (err: unknown) =>
        err instanceof ConfigError && /GCM_ADDRESS_CLASSES_FILE .*cannot be read/.test(err.message),
    );
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ tor: ['nope'] }));
    assert.throws(
      () => loadConfig({ ...base, GCM_ADDRESS_CLASSES_FILE: bad }),
      (err: unknown) => err instanceof ConfigError && /"tor": "nope" is not an address/.test(err.message),
    );
    assert.equal(loadConfig(base).addressClasses, undefined);
  });
});
