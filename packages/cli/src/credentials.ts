import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** One stored login: the token a device link gave, for one service URL. */
export interface StoredLogin {
  token: string;
  /** The game the token is scoped to (a cloud token sees one game). */
  game_id?: string;
  saved_at: string;
}

export interface CredentialsFile {
  /** The service URL `gcm login` last logged in to: the default when neither --url nor GCM_URL says. */
  current?: string;
  services: Record<string, StoredLogin>;
}

/** `$GCM_CONFIG_DIR`, else `$XDG_CONFIG_HOME/gcm`, else `~/.config/gcm`. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GCM_CONFIG_DIR) return env.GCM_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'gcm');
}

function credentialsPath(dir: string): string {
  return path.join(dir, 'credentials.json');
}

/** A URL as a key: no trailing slash, so `http://h/` and `http://h` are one login. */
export function normalizeUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`the service URL must be http:// or https://, not ${parsed.protocol}`);
  }
  return parsed.toString().replace(/\/+$/, '');
}

export function readCredentials(dir = configDir()): CredentialsFile {
  let text: string;
  try {
    text = readFileSync(credentialsPath(dir), 'utf8');
  } catch {
    return { services: {} };
  }
  try {
    const parsed = JSON.parse(text) as Partial<CredentialsFile>;
    return { ...parsed, services: parsed.services ?? {} };
  } catch {
    throw new Error(
      `${credentialsPath(dir)} is not valid JSON: fix it, or delete it and run gcm login again`,
    );
  }
}

/**
 * Written whole to a temp file created 0600, then renamed over the old one: a crash leaves the old file, and
 * no other user can read the token at any moment. The directory is 0700.
 */
export function writeCredentials(file: CredentialsFile, dir = configDir()): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const target = credentialsPath(dir);
  const temp = `${target}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temp, 0o600);
    renameSync(temp, target);
  } finally {
    rmSync(temp, { force: true });
  }
}
