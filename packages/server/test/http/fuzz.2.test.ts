// Share 2 of the fuzz suite's operations (see fuzz-suite.ts); each share is its own test process.
process.env.FUZZ_SHARD = '2';
await import('./fuzz-suite.js');
