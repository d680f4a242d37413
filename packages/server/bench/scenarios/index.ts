import type { Scenario } from '../lib/scenario.js';
import { billingWatch } from './billing-watch.js';
import { buildsList } from './builds-list.js';
import { dockerRun } from './docker-run.js';
import { lobbyOutput } from './lobby-output.js';
import { lobbyPage } from './lobby-page.js';
import { lobbyRuntime } from './lobby-runtime.js';
import { lobbyWrites } from './lobby-writes.js';
import { matchmakerFind } from './matchmaker-find.js';
import { namespaceRead } from './namespace-read.js';
import { signInFlood } from './sign-in-flood.js';
import { swarmRuntime } from './swarm-runtime.js';
import { validateContention } from './validate-contention.js';
import { versionValidate } from './version-validate.js';

/** Every scenario, in the order a full run goes through them; add new ones here. */
export const SCENARIOS: readonly Scenario[] = [
  namespaceRead,
  versionValidate,
  validateContention,
  lobbyPage,
  lobbyWrites,
  buildsList,
  billingWatch,
  signInFlood,
  dockerRun,
  lobbyRuntime,
  lobbyOutput,
  swarmRuntime,
  matchmakerFind,
];
