import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { uploadOrigins } from '../../src/http/dashboard.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * The dashboard PUTs uploads straight to the presigned URLs: with an S3 store they are another origin, which
 * the page's CSP must let it connect to (and only then).
 */
describe('dashboard CSP and the upload store', () => {
  it('adds nothing for the embedded store, the endpoint for path style, and the bucket host otherwise', () => {
    assert.deepEqual(uploadOrigins(undefined), []);
    const s3 = { endpoint: 'https://minio.example:9000/', bucket: 'builds', forcePathStyle: true };
    assert.deepEqual(uploadOrigins(s3), ['https://minio.example:9000']);
    assert.deepEqual(
      uploadOrigins({ ...s3, endpoint: 'https://s3.eu-west-1.amazonaws.com', forcePathStyle: false }),
      ['https://builds.s3.eu-west-1.amazonaws.com', 'https://s3.eu-west-1.amazonaws.com'],
    );
  });

  describe('a service on S3', () => {
    let svc: TestService;
    before(async () => {
      svc = await startTestService({
        env: { S3_ENDPOINT: 'http://s3.test:9000', S3_BUCKET: 'gcm-builds', S3_FORCE_PATH_STYLE: 'true' },
      });
    });
    after(() => svc?.close());

    it('serves the dashboard with connect-src naming the store', async () => {
      const res = await svc.call('GET', '/', { token: null, headers: { accept: 'text/html' } });
      const csp = String(res.headers['content-security-policy']);
      assert.ok(csp.includes("connect-src 'self' http://s3.test:9000;"), csp);
      assert.ok(csp.includes("default-src 'self';"), csp);
    });
  });
});
