import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { PROJECT_ROOT } from './service.js';

const execFileAsync = promisify(execFile);
const THROWAWAY_SCRIPT = path.join(PROJECT_ROOT, 'scripts', 'pg-throwaway.sh');

/**
 * The PostgreSQL server of a `--pg` run. GCM_BENCH_DATABASE_URL names an admin URL of a server where the
 * benchmark may create databases; without it, a throw-away cluster (scripts/pg-throwaway.sh) is started
 * under the run's work dir. Every store of the run is a fresh database `gcm_bench_<run>_<purpose>`. `stop`
 * drops those databases (a given server) or stops the cluster and removes its files; run.ts calls it in its
 * finally block and on SIGINT/SIGTERM, as it does ChildRegistry.stopAll.
 */
export class BenchPostgres {
  private readonly givenUrl = process.env.GCM_BENCH_DATABASE_URL || undefined;
  private readonly clusterDir: string;
  private readonly runId = randomBytes(4).toString('hex');
  private readonly databases: string[] = [];
  private adminUrl: string | undefined;
  private starting: Promise<void> | undefined;
  private stopping: Promise<void> | undefined;
  /** Where the server comes from and its version, for the report's header; set by start. */
  description = 'PostgreSQL (not started)';

  constructor(
    private readonly workDir: string,
    private readonly log: (message: string) => void,
  ) {
    this.clusterDir = path.join(workDir, 'postgres');
  }

  start(): Promise<void> {
    this.starting ??= this.startOnce();
    return this.starting;
  }

  private async startOnce(): Promise<void> {
    let origin: string;
    if (this.givenUrl !== undefined) {
      this.adminUrl = this.givenUrl;
      origin = 'the server of GCM_BENCH_DATABASE_URL';
    } else {
      this.log('starting a throw-away PostgreSQL cluster');
      // Run as root, the script runs the server as the unprivileged postgres user, which must be able to
      // reach the cluster's directory inside the (0700) work dir.
      chmodSync(this.workDir, 0o755);
      const { stdout } = await execFileAsync(THROWAWAY_SCRIPT, ['start', this.clusterDir]);
      this.adminUrl = stdout.trim();
      origin = 'a throw-away cluster (scripts/pg-throwaway.sh: fsync and synchronous_commit off)';
    }
    const version = await this.admin(async (client) => {
      const { rows } = await client.query<{ server_version: string }>('show server_version');
      return rows[0]?.server_version ?? '?';
    });
    this.description = `PostgreSQL ${version} on ${origin}, a fresh database per store`;
  }

  /** Creates a fresh database for one store of the run and returns its URL. */
  async createDatabase(purpose: string): Promise<string> {
    if (this.adminUrl === undefined) throw new Error('BenchPostgres.start was not called');
    // A purpose asked for again (the same scenario in a later run of `--runs`) gets a database of its own.
    const taken = this.databases.filter((d) => d.startsWith(`gcm_bench_${this.runId}_${purpose}`)).length;
    const name = `gcm_bench_${this.runId}_${purpose}${taken === 0 ? '' : `_${taken + 1}`}`;
    await this.admin((client) => client.query(`create database ${name}`));
    this.databases.push(name);
    const url = new URL(this.adminUrl);
    url.pathname = `/${name}`;
    return url.toString();
  }

  /**
   * Runs pgbench (prepared statements, `clients` connections over two threads, `durationSec` seconds) with
   * `script` on the database at `url`, `variables` given to every client with -D; the same server and the same
   * moment as the service it is compared with.
   */
  async pgbench(
    url: string,
    script: string,
    options: { clients: number; durationSec: number; variables: Record<string, string> },
  ): Promise<PgbenchResult> {
    const file = path.join(this.workDir, `pgbench-${randomBytes(4).toString('hex')}.sql`);
    writeFileSync(file, script);
    const args = ['-n', '-M', 'prepared', '-c', String(options.clients), '-j', '2'];
    args.push('-T', String(options.durationSec), '-f', file);
    for (const [name, value] of Object.entries(options.variables)) args.push('-D', `${name}=${value}`);
    args.push(url);
    const { stdout } = await execFileAsync(pgbenchBinary(), args, { maxBuffer: 16 * 1024 * 1024 });
    const figure = (pattern: RegExp) => {
      const found = pattern.exec(stdout)?.[1];
      if (found === undefined) throw new Error(`pgbench printed no ${pattern}:\n${stdout}`);
      return Number(found);
    };
    return {
      tps: figure(/^tps = ([\d.]+) \(without initial connection time\)/m),
      transactions: figure(/^number of transactions actually processed: (\d+)/m),
      // Older pgbench (before 15) prints no failure count: it stops at the first failure instead.
      failed: Number(/^number of failed transactions: (\d+)/m.exec(stdout)?.[1] ?? 0),
      latencyMs: figure(/^latency average = ([\d.]+) ms/m),
    };
  }

  /** Safe to call at any point, more than once, and while start is still under way. */
  stop(): Promise<void> {
    this.stopping ??= this.stopOnce();
    return this.stopping;
  }

  private async stopOnce(): Promise<void> {
    await this.starting?.catch(() => undefined);
    if (this.givenUrl === undefined) {
      await execFileAsync(THROWAWAY_SCRIPT, ['stop', this.clusterDir]);
      return;
    }
    if (this.databases.length === 0) return;
    try {
      await this.admin(async (client) => {
        for (const name of this.databases) await client.query(`drop database if exists ${name} with (force)`);
      });
    } catch (err) {
      this.log(`could not drop ${this.databases.join(', ')}: ${err instanceof Error ? err.message : err}`);
    }
  }

  private async admin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: this.adminUrl });
    await client.connect();
    try {
      return await run(client);
    } finally {
      await client.end();
    }
  }
}

export interface PgbenchResult {
  /** Transactions per second, the initial connections not counted. */
  tps: number;
  transactions: number;
  failed: number;
  latencyMs: number;
}

/** Debian's server binaries first (the cluster's own version), else pgbench on PATH. */
function pgbenchBinary(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) {
    const candidate = path.join(root, version, 'bin', 'pgbench');
    if (existsSync(candidate)) return candidate;
  }
  return 'pgbench';
}
