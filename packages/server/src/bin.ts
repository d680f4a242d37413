#!/usr/bin/env node
import { checkConfig } from './scripts/check-config.js';

const USAGE = `usage: gcm-server [start]          run the service (as npm start)
       gcm-server check-config [--json]  print the effective configuration; exit 2 if it is bad
       gcm-server runtime status [--json]
                                     the machines lobbies run on, by region; exit 1 if a region has
                                     no ready node, 2 if the configuration is bad`;

const [command, ...args] = process.argv.slice(2);
if (command === 'check-config') {
  process.exitCode = checkConfig(args);
} else if (command === 'runtime') {
  // Imported only here: check-config never loads the drivers.
  const { runtimeStatus } = await import('./scripts/runtime-status.js');
  process.exitCode = await runtimeStatus(args);
} else if (command === undefined || command === 'start') {
  // main.js starts the service as it loads; imported only here so check-config never loads the app.
  await import('./main.js');
} else {
  process.stderr.write(`unknown command "${command}"\n${USAGE}\n`);
  process.exitCode = 2;
}
