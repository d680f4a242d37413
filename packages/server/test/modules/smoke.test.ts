import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createGameFixture, startTestService, type TestService } from '../helpers/service.js';

describe('service start-up', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await svc.close();
  });

  it('serves a namespace created through the API', async () => {
    const f = await createGameFixture(svc);
    const res = await svc.call('GET', `/cloud/games/${f.gameId}/namespaces/${f.namespaceId}`, {
      token: f.cloudToken,
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().namespace.name_id, 'prod');
  });
});
