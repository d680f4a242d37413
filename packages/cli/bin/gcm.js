#!/usr/bin/env node
// Committed so that `npm ci` can link node_modules/.bin/gcm before the root `prepare` script writes dist/:
// with the link missing, `npx gcm` would fetch a stranger's package of that name from the registry.
import { existsSync } from 'node:fs';

const main = new URL('../dist/main.js', import.meta.url);
if (existsSync(main)) {
  await import(main.href);
} else {
  process.stderr.write(
    'gcm is not built yet: run `npm run build` at the repository root (npm ci does it too)\n',
  );
  process.exitCode = 1;
}
