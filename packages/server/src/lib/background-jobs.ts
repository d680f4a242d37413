import { randomUUID } from 'node:crypto';
import type { Db } from '../db/open-db.js';
import type { Metrics } from './metrics.js';
import { PeriodicTask } from './periodic-task.js';

export interface BackgroundJob {
  /** Unique across the service: the lease's key. */
  name: string;
  intervalMs: number;
  run(): Promise<unknown>;
}

/**
 * The service's periodic jobs, started and stopped in one place. With `shared` (PostgreSQL, several
 * instances) each pass first takes or renews the job's lease in the database, so one instance runs a job
 * while the others skip it; if the holder dies its lease runs out after a few intervals and another
 * instance takes over. The jobs' own row locks keep each row's work once-only even when passes overlap
 * at a hand-over. On SQLite the store belongs to one process, so there is nobody to share with.
 */
export class BackgroundJobs {
  private readonly holder = randomUUID();
  private readonly tasks: PeriodicTask[] = [];
  private readonly names: string[] = [];

  constructor(
    private readonly db: Db,
    private readonly shared: boolean,
    private readonly onError: (job: string, err: unknown) => void,
    private readonly now: () => number = Date.now,
    /** Counts each pass this instance runs, and its failures (a lease it could not take is one). */
    private readonly metrics?: Pick<Metrics, 'addJob' | 'jobPassed'>,
  ) {}

  start(job: BackgroundJob): void {
    if (job.intervalMs <= 0) return;
    const ttlMs = Math.max(job.intervalMs * 3, 5_000);
    this.metrics?.addJob(job.name);
    const pass = async () => {
      try {
        if (this.shared && !(await this.takeLease(job.name, ttlMs))) return;
        await job.run();
      } catch (err) {
        this.metrics?.jobPassed(job.name, true);
        throw err;
      }
      this.metrics?.jobPassed(job.name, false);
    };
    const task = new PeriodicTask(pass, (err) => this.onError(job.name, err));
    task.start(job.intervalMs);
    this.tasks.push(task);
    this.names.push(job.name);
  }

  /** Stops every timer, waits for passes in progress, and hands held leases back for a prompt take-over. */
  async stop(): Promise<void> {
    await Promise.all(this.tasks.map((task) => task.stop()));
    this.tasks.length = 0;
    if (this.shared && this.names.length > 0) {
      await this.db
        .deleteFrom('job_leases')
        .where('holder', '=', this.holder)
        .where('job_name', 'in', this.names)
        .execute()
        .catch((err: unknown) => this.onError('lease release', err));
    }
  }

  /**
   * Takes the lease if it is free, expired or already ours, renewing it for `ttlMs`; true when we hold
   * it. One statement, so two instances racing for an expired lease cannot both win.
   */
  async takeLease(name: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const row = await this.db
      .insertInto('job_leases')
      .values({ job_name: name, holder: this.holder, expire_ts: now + ttlMs })
      .onConflict((oc) =>
        oc
          .column('job_name')
          .doUpdateSet((eb) => ({
            holder: eb.ref('excluded.holder'),
            expire_ts: eb.ref('excluded.expire_ts'),
          }))
          .where((eb) =>
            eb.or([eb('job_leases.holder', '=', this.holder), eb('job_leases.expire_ts', '<', now)]),
          ),
      )
      .returning('holder')
      .executeTakeFirst();
    return row !== undefined;
  }
}
