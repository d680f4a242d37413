import { startTracing } from './tracing.js';

// Tracing patches http and pg as they load, so the service's modules are imported only once it is on.
const tracing = await startTracing(process.env);
const { start } = await import('./start.js');
start(tracing === undefined ? {} : { beforeExit: () => tracing.shutdown() });
