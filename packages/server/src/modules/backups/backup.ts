import { randomUUID } from 'node:crypto';
import { chmod, copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { isNotFound, syncDir } from '../../lib/files.js';
import { OPERATOR_TOKEN_FILE } from '../tokens/operator-token.js';

/** The store's file in a data dir and in a backup. */
export const SQLITE_FILE = 'gcm.sqlite3';
export const MANIFEST_FILE = 'backup.json';
/** The embedded blob store's finished objects; parts and temp files of unfinished uploads are not kept. */
const BLOB_OBJECTS = path.join('blobs', 'objects');
const FORMAT = 1;
/** Pages copied per step: small enough that requests queued behind a step wait milliseconds, not seconds. */
const PAGES_PER_STEP = 256;

export interface BackupManifest {
  format: typeof FORMAT;
  /** When the database copy was taken (epoch ms): it holds every write acknowledged before then. */
  created_ts: number;
  /** The last migration the copied store had run; a restore refuses a store newer than its code. */
  schema_version: string;
  blob_count: number;
  /** The database copy, the blobs and the operator token file together. */
  bytes: number;
}

export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

/**
 * Writes a restorable copy of the embedded store's data dir to `dest` (which must not exist) while the
 * service keeps serving: the database through SQLite's online backup API over the service's own connection
 * (the exclusive lock shuts out any other), a few pages per step so requests run between steps; then the
 * blobs and the operator token file. Blobs are copied after the database copy is complete: blob files are
 * written to a temp name and renamed into place, never changed after, so every blob a row of the copy names
 * is already there. (A blob the purge deletes in between is left out while the copy may still hold its row:
 * the purge, which deletes rows it finished with, runs again after a restore.) Written under a temp name and
 * renamed at the end, so a crash never leaves a half backup under the final name.
 */
export async function writeBackup(input: {
  sqlite: SqliteDatabase.Database;
  dataDir: string;
  dest: string;
  now: () => number;
}): Promise<BackupManifest> {
  const parent = path.dirname(input.dest);
  await mkdir(parent, { recursive: true, mode: 0o700 });
  if (await exists(input.dest)) throw new BackupError(`${input.dest} exists already`);
  const work = path.join(parent, `.${path.basename(input.dest)}.partial-${randomUUID()}`);
  await mkdir(work, { mode: 0o700 });
  try {
    const dbCopy = path.join(work, SQLITE_FILE);
    // Created 0600 first: it holds the signing keys and secrets, and SQLite keeps an existing file's mode.
    await writeFile(dbCopy, '', { mode: 0o600 });
    await input.sqlite.backup(dbCopy, { progress: () => PAGES_PER_STEP });
    const createdTs = input.now();
    const schemaVersion = checkCopy(dbCopy);
    let bytes = (await stat(dbCopy)).size;
    const blobs = await copyTree(path.join(input.dataDir, BLOB_OBJECTS), path.join(work, BLOB_OBJECTS));
    bytes += blobs.bytes;
    const token = path.join(input.dataDir, OPERATOR_TOKEN_FILE);
    if (await exists(token)) {
      await copyFile(token, path.join(work, OPERATOR_TOKEN_FILE));
      await chmod(path.join(work, OPERATOR_TOKEN_FILE), 0o600);
      bytes += (await stat(token)).size;
    }
    const manifest: BackupManifest = {
      format: FORMAT,
      created_ts: createdTs,
      schema_version: schemaVersion,
      blob_count: blobs.files,
      bytes,
    };
    await writeFile(path.join(work, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, {
      mode: 0o600,
    });
    await syncDir(work);
    await rename(work, input.dest);
    await syncDir(parent);
    return manifest;
  } catch (err) {
    await rm(work, { recursive: true, force: true });
    throw err;
  }
}

/**
 * Makes `dataDir` (missing or empty) a data dir holding the backup in `backupDir`, after checking the
 * manifest, the database copy's integrity, and that this code knows the copy's schema (it migrates an
 * older one forward at start). Refuses a data dir with anything in it: a restore never mixes two stores.
 */
export async function restoreBackup(input: {
  backupDir: string;
  dataDir: string;
  knownMigrations: readonly string[];
}): Promise<BackupManifest> {
  const manifest = await readManifest(input.backupDir);
  const dbCopy = path.join(input.backupDir, SQLITE_FILE);
  const schemaVersion = checkCopy(dbCopy);
  if (schemaVersion !== manifest.schema_version) {
    throw new BackupError(
      `${dbCopy} is at schema ${schemaVersion}, not the manifest's ${manifest.schema_version}: the backup was changed`,
    );
  }
  if (schemaVersion !== '' && !input.knownMigrations.includes(schemaVersion)) {
    throw new BackupError(
      `the backup's store is at schema ${schemaVersion}, which this version of the service does not know: ` +
        'restore it with the version that wrote it, or a newer one',
    );
  }
  const present = await readdir(input.dataDir).catch((err: unknown) => {
    if (isNotFound(err)) return [];
    throw err;
  });
  if (present.length > 0) {
    throw new BackupError(`${input.dataDir} is not empty: restore into a new or empty data dir`);
  }
  await mkdir(input.dataDir, { recursive: true, mode: 0o700 });
  await chmod(input.dataDir, 0o700);
  await copyFile(dbCopy, path.join(input.dataDir, SQLITE_FILE));
  await chmod(path.join(input.dataDir, SQLITE_FILE), 0o600);
  await mkdir(path.join(input.dataDir, 'blobs'), { mode: 0o700 });
  await copyTree(path.join(input.backupDir, BLOB_OBJECTS), path.join(input.dataDir, BLOB_OBJECTS));
  const token = path.join(input.backupDir, OPERATOR_TOKEN_FILE);
  if (await exists(token)) {
    await copyFile(token, path.join(input.dataDir, OPERATOR_TOKEN_FILE));
    await chmod(path.join(input.dataDir, OPERATOR_TOKEN_FILE), 0o600);
  }
  await syncDir(input.dataDir);
  return manifest;
}

export async function readManifest(backupDir: string): Promise<BackupManifest> {
  const file = path.join(backupDir, MANIFEST_FILE);
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new BackupError(`${file} cannot be read as a backup manifest: ${(err as Error).message}`);
  }
  const m = parsed as Partial<BackupManifest> | null;
  if (
    m === null ||
    typeof m !== 'object' ||
    m.format !== FORMAT ||
    typeof m.created_ts !== 'number' ||
    typeof m.schema_version !== 'string' ||
    typeof m.blob_count !== 'number' ||
    typeof m.bytes !== 'number'
  ) {
    throw new BackupError(`${file} is not a format ${FORMAT} backup manifest`);
  }
  return m as BackupManifest;
}

/** Opens the copy on its own, checks it, and answers the last migration it ran. */
function checkCopy(file: string): string {
  let copy: SqliteDatabase.Database;
  try {
    copy = new SqliteDatabase(file, { fileMustExist: true });
  } catch (err) {
    throw new BackupError(`${file} cannot be opened as a SQLite database: ${(err as Error).message}`);
  }
  try {
    // The copy carries the store's WAL mode; in rollback mode it is one self-contained file.
    copy.pragma('journal_mode = DELETE');
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new BackupError(`${file} fails SQLite's integrity check: ${String(check)}`);
    const row = copy.prepare('SELECT name FROM kysely_migration ORDER BY name DESC LIMIT 1').get() as
      | { name: string }
      | undefined;
    return row?.name ?? '';
  } catch (err) {
    if (err instanceof BackupError) throw err;
    throw new BackupError(`${file} is not a store of this service: ${(err as Error).message}`);
  } finally {
    copy.close();
  }
}

/** Copies the files below `from` (a missing folder is empty) into `to`, folders 0700 and files 0600. */
async function copyTree(from: string, to: string): Promise<{ files: number; bytes: number }> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(from, { withFileTypes: true });
  } catch (err) {
    if (isNotFound(err)) return { files: 0, bytes: 0 };
    throw err;
  }
  await mkdir(to, { recursive: true, mode: 0o700 });
  let files = 0;
  let bytes = 0;
  for (const entry of entries) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      const sub = await copyTree(source, target);
      files += sub.files;
      bytes += sub.bytes;
    } else if (entry.isFile()) {
      try {
        await copyFile(source, target);
      } catch (err) {
        // Deleted since the listing (purged): no row of the database copy can still name it.
        if (isNotFound(err)) continue;
        throw err;
      }
      await chmod(target, 0o600);
      files++;
      bytes += (await stat(target)).size;
    }
  }
  return { files, bytes };
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (err) {
    if (isNotFound(err)) return false;
    throw err;
  }
}
