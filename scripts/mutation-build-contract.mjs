/**
 * Stryker's build step for a mutated contract, run in its sandbox (not through a shell): builds the contract
 * there and links it where the server's imports look first, ahead of node_modules/@gcm/contract, which in
 * the sandbox is the original tree's.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';

execFileSync('npx', ['tsc', '-b', 'packages/contract'], { stdio: 'inherit' });
mkdirSync('packages/server/node_modules/@gcm', { recursive: true });
rmSync('packages/server/node_modules/@gcm/contract', { force: true, recursive: true });
symlinkSync('../../../contract', 'packages/server/node_modules/@gcm/contract', 'dir');
