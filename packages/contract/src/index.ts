/**
 * The wire contract of the game cloud management service, shared by the server, the CLI and the dashboard:
 * request and response schemas (TypeBox) with their static types, the error catalogue, name rules, the
 * version-config schema, resolver and validator, watch schemas. It depends on `typebox` alone (lint-enforced),
 * so it runs in Node and in a browser.
 */
export * from './accounts.js';
export * from './audit.js';
export * from './billing.js';
export * from './builds.js';
export * from './common.js';
export * from './device-links.js';
export * from './errors.js';
export * from './first-run.js';
export * from './format.js';
export * from './game-clients.js';
export * from './games.js';
export * from './idempotency.js';
export * from './limits.js';
export * from './lobby-logs.js';
export * from './lobby-output.js';
export * from './matchmaker.js';
export * from './matchmaker-players.js';
export * from './names.js';
export * from './namespaces.js';
export * from './paging.js';
export * from './roles.js';
export * from './runtime-admin.js';
export * from './runtime-tiers.js';
export * from './schema-issues.js';
export * from './tokens.js';
export * from './uploads.js';
export * from './version-config/locate.js';
export * from './version-config/offline.js';
export * from './version-config/resolve.js';
export * from './version-config/schema.js';
export * from './version-config/unknown-keys.js';
export * from './version-config/validate.js';
export * from './versions.js';
export * from './watch.js';
export * from './webhooks.js';
