import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';

/** What a separate process holds: its resident set from the kernel, its V8 heap from its own /metrics. */
export interface ProcessMemory {
  rssBytes: number;
  heapUsedBytes: number;
  heapTotalBytes: number;
}

/** VmRSS of /proc/PID/status, in bytes (the kernel writes it in kB). */
export function residentBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  const kb = Number(line?.split(/\s+/)[1]);
  if (!Number.isFinite(kb)) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return kb * 1024;
}

/** User + system CPU of /proc/PID/stat, in milliseconds. */
export function cpuMillis(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticksPerSecond = 100;
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

/** One sample of a gauge of the Prometheus text the service's /metrics answers. */
function gauge(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  const value = Number(line?.slice(line.lastIndexOf(' ') + 1));
  if (!Number.isFinite(value)) throw new Error(`/metrics has no ${name}`);
  return value;
}

/** Reads the process's memory now: VmRSS from the kernel, heap from prom-client's default process metrics. */
export async function sampleMemory(pid: number, metricsUrl: string, token: string): Promise<ProcessMemory> {
  const res = await fetch(metricsUrl, { headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${metricsUrl} answered ${res.status}: ${text.slice(0, 200)}`);
  return {
    rssBytes: residentBytes(pid),
    heapUsedBytes: gauge(text, 'nodejs_heap_size_used_bytes'),
    heapTotalBytes: gauge(text, 'nodejs_heap_size_total_bytes'),
  };
}

/**
 * The median of each figure over `count` samples, each taken right after a full garbage collection in the
 * process (through its inspector on `inspectPort`): without it the heap says more about when V8 last
 * collected than about what the service holds.
 */
export async function medianMemory(
  pid: number,
  inspectPort: number,
  metricsUrl: string,
  token: string,
  count: number,
): Promise<ProcessMemory> {
  const samples: ProcessMemory[] = [];
  for (let i = 0; i < count; i++) {
    await collectGarbage(inspectPort);
    samples.push(await sampleMemory(pid, metricsUrl, token));
  }
  const median = (pick: (m: ProcessMemory) => number) => {
    const sorted = samples.map(pick).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  };
  return {
    rssBytes: median((m) => m.rssBytes),
    heapUsedBytes: median((m) => m.heapUsedBytes),
    heapTotalBytes: median((m) => m.heapTotalBytes),
  };
}

/**
 * Runs a full garbage collection in the node process whose inspector listens on `inspectPort`
 * (`--inspect=127.0.0.1:PORT`), so that its heap says what is live rather than when it last collected. The
 * inspector speaks WebSocket, which Node 20 has only behind a flag: a short child of node with that flag
 * sends HeapProfiler.collectGarbage and waits for its answer.
 */
export async function collectGarbage(inspectPort: number): Promise<void> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (url === undefined) throw new Error(`no inspector target on port ${inspectPort}`);
  const script = `
    const ws = new WebSocket(${JSON.stringify(url)});
    const fail = (why) => { console.error(why); process.exit(1); };
    setTimeout(() => fail('no answer to HeapProfiler.collectGarbage within 60 s'), 60000).unref();
    ws.onerror = () => fail('cannot open the inspector socket');
    ws.onopen = () => ws.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' }));
    ws.onmessage = (event) => {
      const answer = JSON.parse(event.data);
      if (answer.id !== 1) return;
      if (answer.error) fail(JSON.stringify(answer.error));
      ws.close();
      process.exit(0);
    };`;
  const child = spawn(process.execPath, ['--experimental-websocket', '--no-warnings', '-e', script], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`collecting garbage in the service failed: ${stderr.trim()}`);
}
