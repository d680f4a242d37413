// StrykerJS over the node:test suite, one module at a time (`npm run mutate`, scripts/mutate.mjs): each
// module names the code that guards tenants or money and the test files that should catch a change to it.
// The tap runner runs each test file as a process (tsx loads the TypeScript), and with perTest coverage a
// mutant runs only the files that reach it.
import { MUTATION_MODULES } from './scripts/mutation-modules.mjs';

const name = process.env.GCM_MUTATE_MODULE ?? 'billing-rules';
/** `npm run mutate -- --recheck`: only these ranges, reported apart from the module's full report. */
const ranges =
  process.env.GCM_MUTATE_RANGES === undefined ? undefined : JSON.parse(process.env.GCM_MUTATE_RANGES);
const reportName = process.env.GCM_MUTATE_REPORT ?? name;
const module = MUTATION_MODULES.find((m) => m.name === name);
if (module === undefined) throw new Error(`GCM_MUTATE_MODULE: no module named ${name}`);
/**
 * A recheck may run only the test files changed since the full run (comma-separated): the module's other
 * files ran against every survivor then and killed none of them.
 */
const testFiles = process.env.GCM_MUTATE_TEST_FILES?.split(',') ?? module.testFiles;

export default {
  packageManager: 'npm',
  testRunner: 'tap',
  plugins: ['@stryker-mutator/tap-runner'],
  coverageAnalysis: 'perTest',
  mutate: ranges ?? module.mutate,
  // The server reads the contract from its build, through node_modules/@gcm/contract, which in the sandbox is
  // the original tree's (node_modules is linked, not copied). A mutated contract is therefore built in the
  // sandbox and linked where the server's imports look first.
  ...(module.mutate.some((m) => m.startsWith('packages/contract/'))
    ? {
        buildCommand: 'node scripts/mutation-build-contract.mjs',
      }
    : {}),
  tap: {
    testFiles,
    nodeArgs: ['--import', 'tsx', '--test-reporter=tap'],
  },
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: `reports/mutation/${reportName}.json` },
  htmlReporter: { fileName: `reports/mutation/${reportName}.html` },
  clearTextReporter: { allowColor: false, logTests: false },
  // Both cores: the machines these run on have two.
  concurrency: 2,
  // A recheck may run beside a full run: a sandbox folder of its own, which neither run's clean-up removes.
  tempDirName: ranges === undefined ? '.stryker-tmp' : '.stryker-tmp-recheck',
  timeoutMS: 60_000,
  // The contract's build stays: the server's tests import it.
  ignorePatterns: [
    'packages/server/dist',
    'packages/dashboard/dist',
    'packages/cli/dist',
    'docs',
    'reports',
    'data',
  ],
  thresholds: { high: 90, low: 85, break: null },
};
