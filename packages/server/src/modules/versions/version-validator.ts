import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger } from 'fastify';
import { Piscina } from 'piscina';
import type { VersionValidationConfig } from '../../config.js';
import { errors } from '../../errors.js';
import type { Caller } from '../tokens/token-authority.js';
import runValidation, { type FoundErrors, type ValidationTask } from './validate-task.js';

/** Large validations one caller may have waiting for a worker; one more is answered 429 VALIDATION_BUSY. */
export const WAITING_PER_CALLER = 8;

// Under tsx (the tests) this module is TypeScript and so is its sibling; built, both are JavaScript. The
// tests' other --import flags are not for workers (and fail in one before tsx is registered there).
const UNDER_TSX = import.meta.url.endsWith('.ts');
const TASK_FILE = fileURLToPath(new URL(`./validate-task${UNDER_TSX ? '.ts' : '.js'}`, import.meta.url));

/** Who waits in which queue: one queue per token (a person: per person), so one flood shares with the rest. */
export function callerKey(caller: Caller | null): string {
  if (caller === null) return 'anonymous';
  switch (caller.kind) {
    case 'operator':
      return 'operator';
    case 'person':
      return `person:${caller.userId}`;
    default:
      return `token:${caller.tokenId}`;
  }
}

/**
 * Validates version configurations off the event loop. A 250 KiB configuration breaking every rule takes
 * 50-150 ms of CPU to validate; on the event loop that delayed every other request by as much, times the
 * number a caller sent at once. Bodies over `inlineMaxBytes` go to worker threads (piscina); callers take
 * turns for the workers (round robin over per-caller queues), so a caller flooding the pool delays another
 * caller's validation by at most one validation per worker, and nobody else's requests at all. Small
 * bodies stay inline: a worker's round trip costs more than validating them.
 */
export class VersionValidator {
  private pool: Piscina<ValidationTask, FoundErrors> | undefined;
  private running = 0;
  /** Callers with validations waiting, in the order they get their next turn. */
  private readonly waiting = new Map<string, (() => void)[]>();

  constructor(
    private readonly settings: VersionValidationConfig,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** `bodyBytes`: the request's content-length; undefined (chunked) counts as large. */
  async validate(caller: string, task: ValidationTask, bodyBytes: number | undefined): Promise<FoundErrors> {
    if (bodyBytes !== undefined && bodyBytes <= this.settings.inlineMaxBytes) return runValidation(task);
    await this.turn(caller);
    try {
      return await this.inWorker(task);
    } finally {
      this.running--;
      this.startNext();
    }
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.destroy();
  }

  /** Resolves when `caller` may use a worker (this.running counts it then). */
  private turn(caller: string): Promise<void> {
    if (this.running < this.settings.threads && this.waiting.size === 0) {
      this.running++;
      return Promise.resolve();
    }
    const queue = this.waiting.get(caller) ?? [];
    if (queue.length >= WAITING_PER_CALLER) throw errors.validationBusy(queue.length);
    return new Promise((resolve) => {
      queue.push(resolve);
      this.waiting.set(caller, queue);
    });
  }

  private startNext(): void {
    while (this.running < this.settings.threads) {
      const first = this.waiting.entries().next();
      if (first.done === true) return;
      const [caller, queue] = first.value;
      const start = queue.shift();
      // To the back of the line: the next turn is another caller's.
      this.waiting.delete(caller);
      if (queue.length > 0) this.waiting.set(caller, queue);
      if (start === undefined) continue;
      this.running++;
      start();
    }
  }

  /** Made at the first large validation: a service that never sees one starts no thread. */
  private poolOf(): Piscina<ValidationTask, FoundErrors> {
    if (this.pool !== undefined) return this.pool;
    const pool = new Piscina<ValidationTask, FoundErrors>({
      filename: TASK_FILE,
      minThreads: this.settings.threads,
      maxThreads: this.settings.threads,
      // The turns above keep at most one task per worker; piscina's own queue stays empty.
      idleTimeout: Number.POSITIVE_INFINITY,
      resourceLimits: { maxOldGenerationSizeMb: this.settings.workerHeapMb },
      ...(UNDER_TSX ? { execArgv: ['--import', 'tsx'] } : {}),
    });
    // A worker that dies (out of memory) is reported here as well as to its task; unheard, it would end the
    // process. Piscina starts another.
    pool.on('error', (err: unknown) => this.log.warn({ err }, 'a version validation worker stopped'));
    this.pool = pool;
    return pool;
  }

  private async inWorker(task: ValidationTask): Promise<FoundErrors> {
    const pool = this.poolOf();
    const signal = AbortSignal.timeout(this.settings.timeoutMs);
    try {
      return await pool.run(task, { signal });
    } catch (err) {
      // A timed-out task's worker is terminated and replaced, as is one that crashed.
      const reason = signal.aborted ? 'timeout' : 'failed';
      this.log.warn({ err, reason }, 'a version configuration could not be validated in a worker');
      throw errors.validationUnavailable(reason, this.settings.timeoutMs);
    }
  }
}
