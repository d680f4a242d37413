import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createService } from '../composition-root.js';
import { loadConfig } from '../config.js';
import { OPENAPI_PATH } from '../http/openapi.js';

/**
 * Writes the service's OpenAPI document to the file named by the first argument, without a running service:
 * the dashboard's build generates its typed client from it. The app is built over a throw-away data dir
 * (its store, operator token and secrets are never used) and asked for the document as any client would,
 * so the file is exactly what GET /openapi.json serves.
 */
async function main(): Promise<void> {
  const out = process.argv[2];
  if (out === undefined) throw new Error('usage: write-openapi <file>');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gcm-openapi-'));
  try {
    // The real environment is not read: a DATABASE_URL or a GCM_ variable of the shell must not matter.
    const config = loadConfig({ GCM_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    const { app } = await createService(config, { logger: false });
    try {
      const res = await app.inject({ method: 'GET', url: OPENAPI_PATH });
      if (res.statusCode !== 200) throw new Error(`GET ${OPENAPI_PATH}: ${res.statusCode} ${res.body}`);
      writeFileSync(out, `${JSON.stringify(res.json(), null, 2)}\n`);
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`write-openapi: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
