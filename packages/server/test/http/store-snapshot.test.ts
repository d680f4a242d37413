/**
 * The store snapshots the authorization matrix, the fuzz suite and the isolation tests compare: the last
 * snapshot is reused while the store's change marker stands still, so the marker must move with every
 * write — an update that keeps the row count too — or those suites would pass over a change they exist to
 * catch.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createGameFixture, startTestService, type TestService } from '../helpers/service.js';
import { diffSnapshots, snapshotStore } from '../helpers/store-snapshot.js';

describe('store snapshots', () => {
  let svc: TestService;
  let gameId: string;
  before(async () => {
    svc = await startTestService();
    ({ gameId } = await createGameFixture(svc));
  });
  after(() => svc.close());

  it('stand while nothing is written, and are read again after an insert', async () => {
    const first = await snapshotStore(svc.deps.db);
    const again = await snapshotStore(svc.deps.db);
    assert.deepEqual(diffSnapshots(first, again), []);
    // The reuse is what makes the matrix and the fuzz suite cheap.
    assert.equal(again, first);

    const made = await svc.call('POST', '/cloud/games', {
      body: { name_id: 'second', display_name: 'Second' },
    });
    assert.equal(made.statusCode, 200, made.body);
    const changed = diffSnapshots(again, await snapshotStore(svc.deps.db));
    assert.ok(
      changed.some((line) => line.startsWith('games +') && line.includes('"second"')),
      changed.join('\n'),
    );
  });

  it('see an update that keeps every count, and a delete', async () => {
    const before = await snapshotStore(svc.deps.db);
    await sql`update games set display_name = 'Renamed' where game_id = ${gameId}`.execute(svc.deps.db);
    const renamed = await snapshotStore(svc.deps.db);
    const changed = diffSnapshots(before, renamed);
    assert.ok(
      changed.some((line) => line.startsWith('games -') && line.includes('Test Game')),
      changed.join('\n'),
    );
    assert.ok(
      changed.some((line) => line.startsWith('games +') && line.includes('Renamed')),
      changed.join('\n'),
    );

    await sql`delete from audit_events`.execute(svc.deps.db);
    const emptied = diffSnapshots(renamed, await snapshotStore(svc.deps.db));
    assert.ok(
      emptied.length > 0 && emptied.every((line) => line.startsWith('audit_events -')),
      emptied.join('\n'),
    );
  });
});
