import { createReadStream } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { parseRetryAfter, TransientError } from '@gcm/sdk';
import { USER_AGENT } from './client.js';

/** A PUT the store refused for good (a 4xx other than 429): retrying the same request cannot help. */
export class PartRefusedError extends Error {
  constructor(
    readonly part: number,
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** How long a PUT may go without a byte moving either way before it counts as a network failure. */
const IDLE_TIMEOUT_MS = 120_000;

/** The error code of a refusal: the service's JSON body, or an S3 XML `<Code>`. */
function codeOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { code?: unknown };
    if (typeof parsed.code === 'string') return parsed.code;
  } catch {
    // Not JSON: an object store answers XML.
  }
  return /<Code>([^<]{1,128})<\/Code>/.exec(body)?.[1];
}

/**
 * PUTs `length` bytes of `file` from `offset` to a presigned URL, streamed from disk (a part may be 100 MiB
 * or more, and several go at once), with an exact content-length: SigV4 signs it, and the embedded store
 * checks it. node:http rather than fetch because fetch will not send a stream with a length of our choosing.
 * `onBytes` hears of every chunk sent, and of its own undoing (a negative count) when the try fails.
 */
export function putFileRange(
  url: string,
  target: { file: string; offset: number; length: number; part: number },
  onBytes: (delta: number) => void,
  signal?: AbortSignal,
): Promise<void> {
  const parsed = new URL(url);
  const transport = parsed.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let sent = 0;
    let settled = false;
    let body: ReturnType<typeof createReadStream> | undefined;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      if (sent > 0) onBytes(-sent);
      // A store may refuse before it has read the body; one left streaming would hold the process open.
      body?.destroy();
      request.destroy();
      reject(err);
    };
    const request = transport.request(
      parsed,
      {
        method: 'PUT',
        headers: { 'content-length': String(target.length), 'user-agent': USER_AGENT },
        ...(signal === undefined ? {} : { signal }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => {
          // Only the start of an error body is worth keeping.
          if (chunks.length < 16) chunks.push(chunk);
        });
        res.on('error', (err) => fail(new TransientError(`part ${target.part}: ${err.message}`)));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) {
            settled = true;
            resolve();
            return;
          }
          const body = Buffer.concat(chunks).toString('utf8').slice(0, 4096);
          const code = codeOf(body);
          const what = `part ${target.part}: the store answered ${status}${code === undefined ? '' : ` ${code}`}`;
          if (status >= 500 || status === 429) {
            const header = res.headers['retry-after'];
            fail(new TransientError(what, parseRetryAfter(Array.isArray(header) ? header[0] : header)));
          } else {
            fail(new PartRefusedError(target.part, status, code, what));
          }
        });
      },
    );
    request.setTimeout(IDLE_TIMEOUT_MS, () =>
      request.destroy(new Error(`no progress for ${IDLE_TIMEOUT_MS / 1000} s`)),
    );
    request.on('error', (err) => {
      if (signal?.aborted) {
        fail(err);
        return;
      }
      fail(new TransientError(`part ${target.part}: ${(err as NodeJS.ErrnoException).code ?? err.message}`));
    });
    if (target.length === 0) {
      request.end();
      return;
    }
    body = createReadStream(target.file, {
      start: target.offset,
      end: target.offset + target.length - 1,
    });
    body.on('data', (chunk) => {
      sent += chunk.length;
      onBytes(chunk.length);
    });
    // A file that shrank under us cannot be uploaded: the store would wait for bytes that never come.
    body.on('error', (err) => {
      request.destroy(err);
      fail(err);
    });
    body.pipe(request);
  });
}
