import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * packages/server, found by its package.json rather than by a fixed number of `..`: the suite runs from its
 * sources (tsx, one file at a time) and compiled (dist-test/, the whole suite), one level apart.
 */
function serverRoot(): string {
  let dir = import.meta.dirname;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${import.meta.dirname}`);
    dir = up;
  }
  return dir;
}

export const SERVER_ROOT = serverRoot();
export const REPO_ROOT = path.resolve(SERVER_ROOT, '../..');
