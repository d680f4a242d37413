import { chmodSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** The files of the data dir that hold secrets: the SQLite store (signing key, upload secret, hashes) and the operator token. */
const SECRET_FILES = [
  'gcm.sqlite3',
  'gcm.sqlite3-wal',
  'gcm.sqlite3-shm',
  'gcm.sqlite3-journal',
  'operator-token',
  'first-run-setup',
];
/** The embedded blob store's directories; the files in them are written 0600 already. */
const PRIVATE_DIRS = ['blobs', 'blobs/objects', 'blobs/parts', 'blobs/tmp'];

export class DataDirPermissionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DataDirPermissionError';
  }
}

/**
 * Makes the data dir private to this user before anything is written to it: files this process creates
 * from here on are 0600 and directories 0700 (the umask also covers the SQLite WAL and temp files, which
 * SQLite creates itself), a data dir that group or others may read or enter is tightened to 0700 when this
 * user owns it and refused when not (someone else decides who reads it, so we cannot keep our secrets
 * there), and secret files an older version left readable are tightened to 0600. Returns one warning per
 * change made, for the log.
 */
export function secureDataDir(dataDir: string): string[] {
  setPrivateUmask();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const warnings: string[] = [];
  const tighten = (target: string, mode: number, isDataDir: boolean): void => {
    let info: ReturnType<typeof statSync>;
    try {
      info = statSync(target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    if ((info.mode & 0o077) === 0) return;
    const was = (info.mode & 0o777).toString(8).padStart(4, '0');
    const want = mode.toString(8).padStart(4, '0');
    const uid = process.getuid?.();
    if (uid !== undefined && info.uid !== uid) {
      throw new DataDirPermissionError(
        `${target} is mode ${was} (open to group or others) and owned by uid ${info.uid}, not this ` +
          `service's uid ${uid}, so it cannot be made private: ${isDataDir ? 'point GCM_DATA_DIR at a directory this user owns, or chmod it' : 'chown or chmod it'} to ${want}`,
      );
    }
    try {
      chmodSync(target, mode);
    } catch (err) {
      throw new DataDirPermissionError(
        `${target} is mode ${was} (open to group or others) and could not be made ${want}: ` +
          `${(err as Error).message}`,
      );
    }
    warnings.push(`${target} was mode ${was}, open to group or others; made it ${want}`);
  };
  tighten(dataDir, 0o700, true);
  for (const dir of PRIVATE_DIRS) tighten(path.join(dataDir, dir), 0o700, false);
  for (const file of SECRET_FILES) tighten(path.join(dataDir, file), 0o600, false);
  return warnings;
}

/**
 * 0o077 for the whole process: SQLite creates its WAL, shared-memory and journal files itself, with modes
 * derived from the umask, and so would any file a library writes for us. Worker threads cannot set it; the
 * service never starts in one.
 */
function setPrivateUmask(): void {
  process.umask(process.umask() | 0o077);
}
