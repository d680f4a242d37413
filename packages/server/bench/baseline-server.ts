/**
 * The bare baseline: node:http answering every request with the same JSON body, nothing else. Run as its
 * own process so it has an event loop to itself, like the service. BENCH_BODY_FILE names the body;
 * PORT the port on 127.0.0.1.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';

const bodyFile = process.env.BENCH_BODY_FILE;
const port = Number(process.env.PORT);
if (bodyFile === undefined || !Number.isInteger(port) || port <= 0) {
  process.stderr.write('baseline-server needs BENCH_BODY_FILE and PORT\n');
  process.exit(2);
}
const body = readFileSync(bodyFile);
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length };

const server = http.createServer((request, response) => {
  // Drain any request body so keep-alive connections stay usable.
  request.resume();
  response.writeHead(200, headers);
  response.end(body);
});

const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
server.listen(port, '127.0.0.1');
