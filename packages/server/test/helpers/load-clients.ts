import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';

// The suite runs the tests compiled (dist-test, .js) and `test:file` runs them as TypeScript through tsx: the
// client is this module's sibling in the same form.
const COMPILED = import.meta.url.endsWith('.js');
const SCRIPT = fileURLToPath(new URL(COMPILED ? './load-client.js' : './load-client.ts', import.meta.url));
const LOADER = COMPILED ? [] : ['--import', 'tsx'];

export interface LoadClient {
  /** Sends a line (a probe's next round) and answers the line the client answers. */
  ask(): Promise<string>;
  /** Ends the client's stdin (a loop stops) and answers its last line once it exited. */
  end(): Promise<string>;
}

/** Starts test/helpers/load-client.ts in a process of its own; killed when the test ends, whatever happened. */
export function loadClient(
  t: TestContext,
  mode: 'probe' | 'put-loop',
  url: string,
  token: string,
  a: number,
  b: number,
): LoadClient {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [...LOADER, SCRIPT, mode, url, token, String(a), String(b)],
    { stdio: 'pipe' },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const nextLine = async () => {
    const line = await lines.next();
    if (line.done === true) throw new Error(`the ${mode} client ended (${await exited}): ${stderr}`);
    return line.value;
  };
  return {
    ask() {
      child.stdin.write('round\n');
      return nextLine();
    },
    async end() {
      child.stdin.end();
      const line = await nextLine();
      await exited;
      return line;
    },
  };
}
