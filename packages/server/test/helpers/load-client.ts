/**
 * An HTTP client in a process of its own (`node --import tsx load-client.ts MODE …`), so that a test measuring
 * the service's latency measures the service: a client in the service's own process would spend the event
 * loop it measures.
 *
 * - `probe URL TOKEN REQUESTS CONCURRENCY`: each line read on stdin runs a round of REQUESTS GETs of URL,
 *   CONCURRENCY at a time, over kept-alive connections; answers `{"p99": ms, "statuses": {...}}` on a line.
 * - `put-loop URL TOKEN BODY_BYTES WRITERS`: WRITERS loops PUT a JSON body of about BODY_BYTES to URL, each
 *   waiting for its answer, until stdin ends; then answers `{"statuses": {...}, "retryAfter": "…"}`.
 * Anything else is a usage error (exit 2).
 */
import { createInterface } from 'node:readline';

const [mode, url, token, a, b] = process.argv.slice(2);
const headers = { authorization: `Bearer ${token}` };

function count(statuses: Record<number, number>, status: number) {
  statuses[status] = (statuses[status] ?? 0) + 1;
}

async function probe(requests: number, concurrency: number) {
  for await (const _ of createInterface({ input: process.stdin })) {
    const times: number[] = [];
    const statuses: Record<number, number> = {};
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let i = 0; i < requests / concurrency; i++) {
          const t = performance.now();
          const res = await fetch(url as string, { headers });
          await res.arrayBuffer();
          times.push(performance.now() - t);
          count(statuses, res.status);
        }
      }),
    );
    times.sort((x, y) => x - y);
    process.stdout.write(`${JSON.stringify({ p99: times[Math.ceil(times.length * 0.99) - 1], statuses })}\n`);
  }
}

async function putLoop(bodyBytes: number, writers: number) {
  const body = JSON.stringify({ blob: 'x'.repeat(bodyBytes) });
  const statuses: Record<number, number> = {};
  let retryAfter: string | undefined;
  let writing = true;
  process.stdin.on('end', () => {
    writing = false;
  });
  process.stdin.resume();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (writing) {
        const res = await fetch(url as string, {
          method: 'PUT',
          headers: { ...headers, 'content-type': 'application/json' },
          body,
        });
        await res.arrayBuffer();
        count(statuses, res.status);
        if (res.status === 429) retryAfter = res.headers.get('retry-after') ?? undefined;
      }
    }),
  );
  process.stdout.write(`${JSON.stringify({ statuses, retryAfter })}\n`);
}

if (mode === 'probe') await probe(Number(a), Number(b));
else if (mode === 'put-loop') await putLoop(Number(a), Number(b));
else {
  process.stderr.write('usage: load-client.ts probe|put-loop URL TOKEN N M\n');
  process.exit(2);
}
