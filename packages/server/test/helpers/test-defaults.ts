/**
 * node:test as the suite wants it, loaded before every test file with `--import` (package.json's test:unit,
 * and test:file for a few files by hand). It must come before the first import of node:test: later,
 * syncBuiltinESMExports no longer reaches node:test's named exports (it is a `node:`-only builtin).
 *
 * - Every test that names no timeout, in suites that name none, gets DEFAULT_TEST_TIMEOUT_MS. node:test has
 *   no default of its own on Node 20, and its `--test-timeout` applies to a whole file when files run in
 *   processes of their own: a hung test would stop nothing until the file's own limit, and name no test.
 *   A test or suite that legitimately takes longer says so with its own `timeout`, which is kept and which
 *   the tests inside a suite inherit.
 * - Every hook that names no timeout gets its suite's, or DEFAULT_HOOK_TIMEOUT_MS.
 * - A suite declared with `skip` skips each of its tests instead, and runs none of its hooks: node:test
 *   counts a skipped suite's tests nowhere, so a PostgreSQL-only suite would vanish from a SQLite run's
 *   `# skipped` count.
 *
 * The price: a test's reported location is this file, not the test's (node takes it from the caller).
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';

export const DEFAULT_TEST_TIMEOUT_MS = Number(process.env.GCM_TEST_TIMEOUT_MS || 120_000);

type Options = { timeout?: number; skip?: unknown } & Record<string, unknown>;
type Register = (...args: unknown[]) => unknown;

const nodeTest = createRequire(import.meta.url)('node:test') as Record<string, Register>;
const applied = Symbol.for('gcm.test-defaults');

/**
 * A hook (before, after, …) that names no timeout gets its suite's, or this outside any timed suite: hooks
 * start and stop engines, browsers and services, and a hung one would otherwise hold its file until the
 * file's own limit and be reported as a cancelled file, naming nothing (seen once in CI).
 */
export const DEFAULT_HOOK_TIMEOUT_MS = 2 * DEFAULT_TEST_TIMEOUT_MS;

/** The suites being declared right now, innermost last: the timeout each named, and its skip reason. */
const suites: { timeout: number | undefined; skip: string | undefined }[] = [];

function split(args: unknown[]): { name: unknown[]; options: Options | undefined; rest: unknown[] } {
  const name = typeof args[0] === 'string' ? [args[0]] : [];
  const rest = args.slice(name.length);
  // Options come before the function, and may be given as undefined or null.
  const given = typeof rest[0] === 'object' || (rest[0] === undefined && rest.length > 1);
  const options = given ? ((rest.shift() ?? undefined) as Options | undefined) : undefined;
  return { name, options, rest };
}

function skipReason(skip: unknown): string | undefined {
  if (skip === undefined || skip === false) return undefined;
  return typeof skip === 'string' ? skip : 'skipped';
}

const enclosingSkip = () => suites.find((s) => s.skip !== undefined)?.skip;

function wrapTest(register: Register): Register {
  return (...args) => {
    const { name, options, rest } = split(args);
    const skip = enclosingSkip();
    if (skip !== undefined) return register(...name, { ...options, skip }, ...rest);
    if (options?.timeout !== undefined || suites.some((s) => s.timeout !== undefined))
      return register(...args);
    return register(...name, { ...options, timeout: DEFAULT_TEST_TIMEOUT_MS }, ...rest);
  };
}

function wrapSuite(register: Register): Register {
  return (...args) => {
    const { name, options, rest } = split(args);
    const body = rest[0];
    if (typeof body !== 'function') return register(...args);
    const { skip, ...kept } = options ?? {};
    const timeout = typeof kept.timeout === 'number' ? kept.timeout : undefined;
    const entry = { timeout, skip: skipReason(skip) };
    // Suite bodies run synchronously as they are declared, so the stack knows what encloses each test.
    return register(...name, kept, (...bodyArgs: unknown[]) => {
      suites.push(entry);
      try {
        return (body as Register)(...bodyArgs);
      } finally {
        suites.pop();
      }
    });
  };
}

function wrapHook(register: Register): Register {
  return (...args) => {
    if (enclosingSkip() !== undefined) return undefined;
    const [fn, options] = args as [unknown, Options | undefined];
    if (options?.timeout !== undefined) return register(...args);
    const timed = suites.findLast((s) => s.timeout !== undefined)?.timeout;
    return register(fn, { ...options, timeout: timed ?? DEFAULT_HOOK_TIMEOUT_MS });
  };
}

const wrappers: Record<string, (register: Register) => Register> = {
  test: wrapTest,
  it: wrapTest,
  describe: wrapSuite,
  suite: wrapSuite,
  before: wrapHook,
  after: wrapHook,
  beforeEach: wrapHook,
  afterEach: wrapHook,
};

const shared = nodeTest as Record<string | symbol, unknown>;
if (shared[applied] !== true) {
  shared[applied] = true;
  for (const [key, wrap] of Object.entries(wrappers)) {
    const original = nodeTest[key] as Register;
    nodeTest[key] = Object.assign(wrap(original), original);
  }
  syncBuiltinESMExports();
}
