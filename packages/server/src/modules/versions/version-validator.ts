import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger } from 'fastify';
import { Piscina } from 'piscina';
import type { VersionValidationConfig } from '../../config.js';
import { errors } from '../../errors.js';
import type { Caller } from '../../identity/callers.js';
import runValidation, { type FoundErrors, type ValidationTask } from './validate-task.js';

/** Large bodies one caller may have waiting for its turn; one more is answered 429 VALIDATION_BUSY. */
export const WAITING_PER_CALLER = 8;

// Under tsx (the tests) this module is TypeScript and so is its sibling; built, both are JavaScript. The
// tests' other --import flags are not for workers (and fail in one before tsx is registered there).
const UNDER_TSX = import.meta.url.endsWith('.ts');
const TASK_FILE = fileURLToPath(new URL(`./validate-task${UNDER_TSX ? '.ts' : '.js'}`, import.meta.url));

const WARM_UP: ValidationTask = {
  input: { display_name: 'warm-up', config: {} },
  facts: { regions: [], existingDisplayNames: [], hostNetworkingEnabled: false },
};

/** Whose turn a large body waits for: its token's (a person's, the operator's). */
export function callerKey(caller: Caller | null): string {
  if (caller === null) return 'anonymous';
  switch (caller.kind) {
    case 'operator':
      return 'operator';
    case 'person':
      return `person:${caller.userId}`;
    case 'lobby':
      return `lobby:${caller.lobbyId}`;
    default:
      return `token:${caller.tokenId}`;
  }
}

/**
 * Validates version configurations off the event loop. A 200 KiB configuration breaking every rule takes
 * 50-150 ms of CPU to validate; on the event loop that delayed every other request by as much, times the
 * number a caller sent at once. Bodies over `inlineMaxBytes` go to worker threads (piscina). What stays on
 * the event loop for such a body (parsing it, its schema check, copying it to a worker: a few milliseconds)
 * is capped per caller: each caller (token, person, the operator) has one large body in progress at a time,
 * the next ones wait unread (admit), so one caller's flood costs another request at most one body's parsing
 * and takes one worker at a time. Small bodies stay inline: a worker's round trip costs more than
 * validating them.
 */
export class VersionValidator {
  private pool: Piscina<ValidationTask, FoundErrors> | undefined;
  private warm: Promise<void> | undefined;
  /** Per caller with a large body in progress: the requests waiting for it to end, first first. */
  private readonly inProgress = new Map<string, (() => void)[]>();

  constructor(
    private readonly settings: VersionValidationConfig,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Whether a body of this size (undefined: chunked, size unknown) is validated in a worker. */
  isLarge(bodyBytes: number | undefined): boolean {
    return bodyBytes === undefined || bodyBytes > this.settings.inlineMaxBytes;
  }

  /**
   * Resolves, with the function that ends it, when it is `caller`'s turn for a large body; throws 429
   * VALIDATION_BUSY when WAITING_PER_CALLER already wait.
   */
  async admit(caller: string): Promise<() => void> {
    const waiting = this.inProgress.get(caller);
    if (waiting === undefined) {
      this.inProgress.set(caller, []);
    } else {
      if (waiting.length >= WAITING_PER_CALLER) throw errors.validationBusy(waiting.length);
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const next = this.inProgress.get(caller)?.shift();
      if (next === undefined) this.inProgress.delete(caller);
      else next();
    };
  }

  async validate(task: ValidationTask, bodyBytes: number | undefined): Promise<FoundErrors> {
    return this.isLarge(bodyBytes) ? this.inWorker(task) : runValidation(task);
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    this.warm = undefined;
    await pool?.destroy();
  }

  /** Made at the first large validation: a service that never sees one starts no thread. */
  private poolOf(): Piscina<ValidationTask, FoundErrors> {
    if (this.pool !== undefined) return this.pool;
    const pool = new Piscina<ValidationTask, FoundErrors>({
      filename: TASK_FILE,
      minThreads: this.settings.threads,
      maxThreads: this.settings.threads,
      // Its queue holds at most one task per caller (admit).
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

  /**
   * The pool once its first worker has started (and run an empty validation): starting one loads the
   * contract's modules, which on a loaded machine can take seconds that no validation's timeout should count.
   * A pool whose worker cannot start is tried again at the next large validation.
   */
  private async readyPool(): Promise<Piscina<ValidationTask, FoundErrors>> {
    const pool = this.poolOf();
    this.warm ??= pool.run(WARM_UP).then(() => undefined);
    try {
      await this.warm;
    } catch (err) {
      this.warm = undefined;
      throw err;
    }
    return pool;
  }

  private async inWorker(task: ValidationTask): Promise<FoundErrors> {
    let signal: AbortSignal | undefined;
    try {
      const pool = await this.readyPool();
      signal = AbortSignal.timeout(this.settings.timeoutMs);
      return await pool.run(task, { signal });
    } catch (err) {
      // A timed-out task's worker is terminated and replaced, as is one that crashed.
      const reason = signal?.aborted === true ? 'timeout' : 'failed';
      this.log.warn({ err, reason }, 'a version configuration could not be validated in a worker');
      throw errors.validationUnavailable(reason, this.settings.timeoutMs);
    }
  }
}
