import type { Command } from 'commander';
import { Context, type GlobalOptions } from '../context.js';

/** An action that runs with the command's Context (global options merged in). */
export function withContext<A extends unknown[]>(
  run: (ctx: Context, ...args: A) => Promise<void>,
): (...args: [...A, Command]) => Promise<void> {
  return async (...all) => {
    const command = all[all.length - 1] as Command;
    const args = all.slice(0, -1) as unknown as A;
    await run(new Context(command.optsWithGlobals<GlobalOptions>()), ...args);
  };
}
