#!/usr/bin/env node
// Committed so that `npm ci` can link node_modules/.bin/gcm-server before the root `prepare` script writes
// dist/ (npm links a workspace's bins only to files that exist when it installs).
import { existsSync } from 'node:fs';

const bin = new URL('../dist/bin.js', import.meta.url);
if (existsSync(bin)) {
  await import(bin.href);
} else {
  process.stderr.write(
    'gcm-server is not built yet: run `npm run build` at the repository root (npm ci does it too)\n',
  );
  process.exitCode = 1;
}
