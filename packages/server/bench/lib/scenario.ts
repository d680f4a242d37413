import type { ChildRegistry } from './children.js';
import type { LoadResult } from './load.js';
import type { BenchPostgres } from './postgres.js';
import type { RunningService } from './service.js';

/** What run.ts hands every scenario: the running service, the load settings, and where to put files. */
export interface ScenarioContext {
  readonly registry: ChildRegistry;
  readonly service: RunningService;
  /** A temp dir of this run, removed at the end. */
  readonly workDir: string;
  readonly connections: number;
  readonly pipelining: number;
  readonly durationSec: number;
  readonly warmupSec: number;
  /** The PostgreSQL server of a `--pg` run (`service` then runs on it); undefined on SQLite. */
  readonly postgres: BenchPostgres | undefined;
  log(message: string): void;
}

/** A figure derived from the rows, printed under the table with its target (never fails the run). */
export interface Comparison {
  label: string;
  value: number;
  target: string;
  met: boolean;
}

export interface ScenarioReport {
  title: string;
  /** HTTP load rows (autocannon); empty for scenarios that time something else. */
  rows: LoadResult[];
  comparisons: Comparison[];
  /** Other measured figures, one line each, printed under the table. */
  notes?: string[];
}

export interface Scenario {
  /** The name `--only` selects it by. */
  readonly name: string;
  readonly description: string;
  /** Runs on PostgreSQL too, with one and two instances, under `--pg`. */
  readonly supportsPostgres?: boolean;
  /** Runs under `--pg` only (its baseline is PostgreSQL's own). */
  readonly postgresOnly?: boolean;
  run(context: ScenarioContext): Promise<ScenarioReport>;
}
