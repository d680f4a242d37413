import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LOBBY_OUTPUT_LIMITS } from '@gcm/contract';
import {
  deleteExpiredExports,
  EXPORT_KEEP_MS,
} from '../../src/modules/lobby-exports/lobby-exports.service.js';
import { lobbyHistoryCsv } from '../../src/modules/lobby-logs/lobby-logs.service.js';
import { assertError } from '../helpers/error-answer.js';
import { startListening } from '../helpers/listening.js';
import { addMember, asPerson, giveGame, newTeam } from '../helpers/people.js';
import { createGameFixture, type TestService } from '../helpers/service.js';

type Fixture = Awaited<ReturnType<typeof createGameFixture>> & { reporter: string };

const T0 = Date.parse('2025-12-01T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

/** The lobby history export, over HTTP, of lobbies reported through the lobby-log API. */
describe('lobby history export', () => {
  let svc: TestService;
  let f: Fixture;
  let other: Fixture;
  let viewer: string;
  let otherViewer: string;

  async function fixture(name: string): Promise<Fixture> {
    const base = await createGameFixture(svc, name);
    const res = await svc.call(
      'POST',
      `/cloud/games/${base.gameId}/namespaces/${base.namespaceId}/tokens/reporter`,
    );
    assert.equal(res.statusCode, 200, res.body);
    return { ...base, reporter: res.json<{ token: string }>().token };
  }

  async function report(x: Fixture, body: Record<string, unknown>): Promise<string> {
    const res = await svc.call('POST', `/cloud/games/${x.gameId}/namespaces/${x.namespaceId}/logs/lobbies`, {
      token: x.reporter,
      body: { lobby_group_name_id: 'default', region_id: 'lnd-atl', ...body },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json<{ lobby_id: string }>().lobby_id;
  }

  function exportHistory(x: Fixture, body: unknown, options: { headers?: Record<string, string> } = {}) {
    return svc.call('POST', `/cloud/games/${x.gameId}/matchmaker/lobbies/export-history`, {
      body,
      ...(options.headers === undefined ? {} : { headers: options.headers, token: null }),
    });
  }

  async function download(url: string) {
    const res = await fetch(url);
    return { res, text: await res.text() };
  }

  before(async () => {
    ({ svc } = await startListening());
    f = await fixture('export-game');
    other = await fixture('export-other');
    const team = await newTeam(svc, 'exporters');
    const otherTeam = await newTeam(svc, 'others');
    await giveGame(svc, f.gameId, team.teamId);
    await giveGame(svc, other.gameId, otherTeam.teamId);
    viewer = await addMember(svc, team, 'viewer@exporters.example', 'viewer');
    otherViewer = await addMember(svc, otherTeam, 'viewer@others.example', 'viewer');
  });
  after(async () => {
    await svc.close();
  });

  it('answers a URL to a CSV of the lobbies created in the period, quoted and never a formula', async () => {
    const first = await report(f, { create_ts: iso(T0), lobby_group_name_id: 'duel' });
    const stopped = await report(f, { create_ts: iso(T0 + 1000) });
    const events = `/cloud/games/${f.gameId}/namespaces/${f.namespaceId}/logs/lobbies/${stopped}/events`;
    for (const body of [
      { kind: 'start', ts: iso(T0 + 1500) },
      { kind: 'ready', ts: iso(T0 + 2000) },
      { kind: 'stop', ts: iso(T0 + 3000), exit_code: 137 },
    ]) {
      assert.equal((await svc.call('POST', events, { token: f.reporter, body })).statusCode, 204);
    }
    await report(f, { create_ts: iso(T0 - 1), lobby_group_name_id: 'before' });
    await report(f, { create_ts: iso(T0 + 5000), lobby_group_name_id: 'at-end' });
    await report(other, { create_ts: iso(T0 + 10), lobby_group_name_id: 'other-game' });

    const res = await exportHistory(f, { query_start: T0, query_end: T0 + 5000 });
    assert.equal(res.statusCode, 200, res.body);
    const { url } = res.json<{ url: string }>();
    const { res: got, text } = await download(url);
    assert.equal(got.status, 200);
    assert.equal(got.headers.get('content-disposition'), 'attachment; filename="lobby-history.csv"');
    assert.match(got.headers.get('content-type') ?? '', /^text\/csv/);
    const lines = text.split('\r\n');
    assert.equal(
      lines[0],
      'lobby_id,namespace_id,namespace_name_id,game_mode,region_id,create_ts,start_ts,ready_ts,stop_ts,status,exit_code,failed,stop_reason,max_players,player_count',
    );
    assert.equal(lines.length, 4, text);
    assert.equal(lines[3], '', 'ends with a line break');
    const rows = lines.slice(1, 3).map((l) => l.split(','));
    assert.deepEqual(rows[0]?.slice(0, 2), [first, f.namespaceId]);
    assert.match(rows[0]?.[2] ?? '', /^[a-z0-9-]+$/, "the namespace's name_id");
    assert.deepEqual(rows[0]?.slice(3, 6), ['duel', 'lnd-atl', iso(T0)]);
    assert.equal(rows[0]?.[9], 'starting');
    assert.deepEqual(rows[1]?.slice(6, 12), [
      iso(T0 + 1500),
      iso(T0 + 2000),
      iso(T0 + 3000),
      'stopped',
      '137',
      'true',
    ]);
    assert.equal(rows[1]?.[0], stopped);
    assert.ok(!text.includes('other-game') && !text.includes('before') && !text.includes('at-end'), text);
  });

  it('keeps the newest when the period holds more than the limit, and says so', async () => {
    const namespaces = [{ namespace_id: f.namespaceId, name_id: '=cmd()' }];
    const cut = await lobbyHistoryCsv(svc.deps, namespaces, { start: T0, end: T0 + 5000 }, 1);
    const lines = cut.csv.toString().split('\r\n');
    assert.equal(cut.cut, true);
    assert.equal(lines.length, 4);
    assert.match(lines[1] ?? '', new RegExp(`,${iso(T0 + 1000)},`), 'the newer lobby is kept');
    assert.match(lines[1] ?? '', /,'=cmd\(\),/, 'a formula-like cell is made text');
    assert.equal(lines[2], '# cut: only the newest 1 lobbies of the period are listed');
  });

  it('refuses a period that is empty, reversed or too long, naming the field (400)', async () => {
    for (const body of [
      { query_start: T0, query_end: T0 },
      { query_start: T0, query_end: T0 - 1 },
      { query_start: T0, query_end: T0 + LOBBY_OUTPUT_LIMITS.historyPeriodMaxMs + 1 },
    ]) {
      const err = assertError(await exportHistory(f, body), 400, 'API_BAD_BODY');
      assert.equal(err.metadata?.field, 'query_end', JSON.stringify(err));
    }
    assertError(await exportHistory(f, { query_start: T0 }), 400, 'API_BAD_BODY');
    assertError(await exportHistory(f, { query_start: 'x', query_end: T0 }), 400, 'API_BAD_BODY');
    const longest = await exportHistory(f, {
      query_start: T0,
      query_end: T0 + LOBBY_OUTPUT_LIMITS.historyPeriodMaxMs,
    });
    assert.equal(longest.statusCode, 200, longest.body);
  });

  it("is a viewer's right, recorded in the audit log; another team's viewer is refused", async () => {
    const body = { query_start: T0, query_end: T0 + 1 };
    const res = await exportHistory(f, body, { headers: asPerson(svc, viewer) });
    assert.equal(res.statusCode, 200, res.body);
    // As on every game route: the auth layer refuses a person of another team before the game is looked at.
    const refused = await exportHistory(f, body, { headers: asPerson(svc, otherViewer) });
    assert.equal(refused.statusCode, 403, refused.body);
    const audit = await svc.call('GET', `/cloud/games/${f.gameId}/audit?limit=5`);
    const events = audit.json<{ events: { operation: string; actor: { kind: string } }[] }>().events;
    const exported = events.find((e) => e.operation === 'games.matchmaker.exportMatchmakerLobbyHistory');
    assert.ok(exported !== undefined, JSON.stringify(events));
  });

  it('deletes exported files a day after, with their rows', async () => {
    const res = await exportHistory(f, { query_start: T0, query_end: T0 + 1 });
    const { url } = res.json<{ url: string }>();
    const key = new URL(url).searchParams.get('key') ?? '';
    assert.match(key, /^exports\/lobby-history\/[0-9a-f-]+\.csv$/);
    assert.ok(await svc.deps.blobs.statObject(key));
    assert.equal(await deleteExpiredExports(svc.deps), 0, 'a new export is kept');
    svc.clock.advance(EXPORT_KEEP_MS + 1);
    assert.ok((await deleteExpiredExports(svc.deps)) >= 1);
    assert.equal(await svc.deps.blobs.statObject(key), undefined);
    const rows = await svc.deps.db
      .selectFrom('lobby_exports')
      .selectAll()
      .where('blob_key', '=', key)
      .execute();
    assert.deepEqual(rows, []);
    assert.equal(await deleteExpiredExports(svc.deps), 0);
  });
});
