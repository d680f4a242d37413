import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { REPORTED_VARIABLES } from '../../src/config-report.js';
import { SERVER_ROOT as ROOT } from '../helpers/paths.js';
import { outputUntilClose } from '../helpers/process.js';

/** Runs the built `gcm-server check-config` with only `env` (plus PATH) and collects what it printed. */
function checkConfig(env: Record<string, string>, args: string[] = []) {
  const child = spawn(process.execPath, ['dist/bin.js', 'check-config', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return outputUntilClose(child);
}

const SECRETS = {
  dbPassword: 'pg-pass-5e8f1a',
  dbQueryPassword: 'ssl-pass-77c2d0',
  smtpPassword: 'smtp-pass-90ab3c',
  operatorToken: 'operator-token-0123456789abcdef0123456789',
  s3KeyId: 'AKIA-check-config-key-id',
  s3Secret: 's3-secret-3f4e5d6c7b8a',
  metricsToken: 'metrics-token-0123456789abcdef0123456789',
  registryPassword: 'registry-pass-1b2c3d',
};

describe('gcm-server check-config', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'gcm-check-config-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('prints every setting with its source, masks every secret, and exits 0', async () => {
    const { code, stdout, stderr } = await checkConfig({
      GCM_DATA_DIR: dataDir,
      PORT: '9090',
      DATABASE_URL: `postgres://gcm:${SECRETS.dbPassword}@db.internal:5432/gcm?sslpassword=${SECRETS.dbQueryPassword}`,
      GCM_SMTP_URL: `smtps://mailer:${SECRETS.smtpPassword}@mx.example.test:465`,
      GCM_OPERATOR_TOKEN: SECRETS.operatorToken,
      S3_ENDPOINT: 'http://minio.internal:9000',
      S3_BUCKET: 'gcm-builds',
      S3_ACCESS_KEY_ID: SECRETS.s3KeyId,
      S3_SECRET_ACCESS_KEY: SECRETS.s3Secret,
      GCM_CORS_ORIGINS: 'https://dash.example.test',
      GCM_METRICS_TOKEN: SECRETS.metricsToken,
      GCM_RUNTIME: 'swarm',
      GCM_REGISTRY: 'registry.example.test:5000/studio',
      GCM_REGISTRY_USERNAME: 'ci-pusher',
      GCM_REGISTRY_PASSWORD: SECRETS.registryPassword,
    });
    assert.equal(code, 0, stderr);
    for (const secret of Object.values(SECRETS)) {
      assert.ok(!stdout.includes(secret) && !stderr.includes(secret), `${secret} was printed`);
    }
    const lines = new Map(
      stdout
        .split('\n')
        .map((line) => /^(\S+)\s+(.*?)\s+\((environment|default)\)$/.exec(line))
        .filter((m) => m !== null)
        .map((m) => [m[1], { value: m[2], source: m[3] }]),
    );
    assert.deepEqual([...lines.keys()], REPORTED_VARIABLES);
    assert.deepEqual(lines.get('PORT'), { value: '9090', source: 'environment' });
    assert.deepEqual(lines.get('HOST'), { value: '0.0.0.0', source: 'default' });
    assert.deepEqual(lines.get('GCM_PUBLIC_URL'), { value: 'http://localhost:9090', source: 'default' });
    assert.deepEqual(lines.get('DATABASE_URL'), {
      value: 'postgres://gcm:***@db.internal:5432/gcm?sslpassword=***',
      source: 'environment',
    });
    assert.equal(lines.get('GCM_SMTP_URL')?.value, 'smtps://mailer:***@mx.example.test:465');
    for (const name of [
      'GCM_OPERATOR_TOKEN',
      'S3_ACCESS_KEY_ID',
      'S3_SECRET_ACCESS_KEY',
      'GCM_METRICS_TOKEN',
      'GCM_REGISTRY_PASSWORD',
    ]) {
      assert.equal(lines.get(name)?.value, '***', name);
    }
    assert.equal(lines.get('GCM_CORS_ORIGINS')?.value, 'https://dash.example.test');
    assert.match(stdout, /operator token: GCM_OPERATOR_TOKEN/);
    assert.match(stdout, /^traces: off$/m);
    // It looked at the data dir and changed nothing there.
    assert.deepEqual(readdirSync(dataDir), []);
  });

  it('answers JSON with --json, and says the operator token will be made at first start', async () => {
    const fresh = path.join(dataDir, 'not-yet');
    const { code, stdout } = await checkConfig(
      { GCM_DATA_DIR: fresh, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector.internal:4318' },
      ['--json'],
    );
    assert.equal(code, 0);
    const report = JSON.parse(stdout) as {
      settings: { name: string; value: string; source: string }[];
      operator_token: string;
      traces: string;
    };
    assert.match(report.traces, /^on /);
    assert.deepEqual(
      report.settings.find((s) => s.name === 'GCM_DATA_DIR'),
      { name: 'GCM_DATA_DIR', value: fresh, source: 'environment' },
    );
    assert.ok(report.settings.every((s) => s.name !== 'GCM_OPERATOR_TOKEN' || s.value === '(unset)'));
    assert.match(report.operator_token, /made at first start/);
    assert.equal(existsSync(fresh), false);
  });

  it('prints what the service refuses to start with and exits 2 on a bad configuration', async () => {
    const env = {
      GCM_DATA_DIR: dataDir,
      PORT: '70000',
      GCM_CORS_ORIGINS: 'https://dash.example.test/app',
      GCM_OPERATOR_TOKEN: 'short-secret-token',
      DATABASE_URL: `mysql://root:${SECRETS.dbPassword}@db/gcm`,
      GCM_RUNTIME: 'swarm',
      GCM_REGISTRY_PASSWORD: SECRETS.registryPassword,
    };
    const checked = await checkConfig(env);
    assert.equal(checked.code, 2);
    assert.equal(checked.stdout, '');
    let expected = '';
    try {
      loadConfig(env);
    } catch (err) {
      expected = (err as Error).message;
    }
    assert.equal(checked.stderr, `${expected}\n`);
    assert.match(checked.stderr, /PORT must be a whole number/);
    assert.match(checked.stderr, /GCM_CORS_ORIGINS must be/);
    assert.match(checked.stderr, /GCM_RUNTIME=swarm needs GCM_REGISTRY/);
    assert.match(checked.stderr, /GCM_REGISTRY_USERNAME and GCM_REGISTRY_PASSWORD must be set together/);
    assert.ok(!checked.stderr.includes(SECRETS.registryPassword));
    assert.ok(!checked.stderr.includes(SECRETS.dbPassword));
    assert.ok(!checked.stderr.includes('short-secret-token'));
  });

  it('exits 2 with the usage on an unknown argument', async () => {
    const { code, stderr } = await checkConfig({ GCM_DATA_DIR: dataDir }, ['--verbose']);
    assert.equal(code, 2);
    assert.match(stderr, /unknown argument "--verbose"\nusage: gcm-server check-config/);
  });

  it('reports every variable loadConfig reads', () => {
    const read = new Set<string>();
    // With S3 chosen, so the S3-only variables are read too.
    const env = new Proxy<Record<string, string | undefined>>(
      { S3_ENDPOINT: 'http://minio.internal:9000', S3_BUCKET: 'gcm-builds' },
      {
        get(target, name) {
          if (typeof name !== 'string') return undefined;
          read.add(name);
          return target[name];
        },
      },
    );
    loadConfig(env);
    assert.deepEqual([...read].sort(), [...REPORTED_VARIABLES].sort());
  });
});
