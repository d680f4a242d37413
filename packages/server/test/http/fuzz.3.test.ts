// Share 3 of the fuzz suite's operations (see fuzz-suite.ts); each share is its own test process.
process.env.FUZZ_SHARD = '3';
await import('./fuzz-suite.js');
