// Request bodies Fastify reads itself (JSON on POST /v1/jobs) are held to the upload rules
// (src/api/body-read-timeout.ts): a body that stops arriving is answered 408 upload_timeout, one that
// trickles below the minimum rate 408 upload_too_slow, each in the envelope, and the connection is
// closed. A body nobody reads (a refusal before parsing) is still drained, so a keep-alive connection
// goes on serving.
import { connect } from 'node:net';

import t from 'tap';

import { startTestService, type TestService } from '../helpers/test-service.js';

const IDLE_TIMEOUT_MS = 500;
const MIN_RATE_GRACE_MS = 1_500;

let svc: TestService;
t.before(async () => {
  svc = await startTestService({ SVC_UPLOAD_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS), SVC_UPLOAD_MIN_RATE_GRACE_MS: String(MIN_RATE_GRACE_MS) });
});
t.teardown(() => svc.close());

interface Exchange {
  /** Everything the server sent. */
  text: string;
  /** Whether the server ended the connection within the wait. */
  closedByServer: boolean;
}

/** Opens a connection, lets `write` send on it, and reads until the server closes it or `waitMs` passes. */
function exchange(write: (send: (bytes: string | Buffer) => void) => void, waitMs: number): Promise<Exchange> {
  const { hostname, port } = new URL(svc.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const finish = (closedByServer: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closedByServer });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => finish(true));
    socket.on('error', () => {});
    socket.on('connect', () => write((bytes) => !socket.destroyed && socket.write(bytes)));
  });
}

const head = (contentType: string, length: number) =>
  `POST /v1/jobs HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${svc.key}\r\nContent-Type: ${contentType}\r\nContent-Length: ${length}\r\n\r\n`;

function envelopeCode(text: string): string | null {
  const body = text.slice(text.indexOf('\r\n\r\n') + 4);
  try {
    return (JSON.parse(body) as { error: { code: string } }).error.code;
  } catch {
    return null;
  }
}

t.test('a JSON body that stops arriving: 408 upload_timeout, and the connection is closed', async (t) => {
  const started = Date.now();
  const result = await exchange((send) => send(`${head('application/json', 100)}{"filename":`), IDLE_TIMEOUT_MS * 8);
  t.match(result.text, /^HTTP\/1\.1 408 /, '408');
  t.equal(envelopeCode(result.text), 'upload_timeout', 'in the envelope');
  t.match(result.text, /\r\nx-request-id: req_\w+\r\n/i, 'with a request id');
  t.ok(result.closedByServer, 'the server closed the connection');
  t.ok(Date.now() - started >= IDLE_TIMEOUT_MS * 0.9, 'not before the idle timeout');
});

t.test('a JSON body that trickles below the minimum rate: 408 upload_too_slow', async (t) => {
  let timer: NodeJS.Timeout | undefined;
  const result = await exchange((send) => {
    send(head('application/json', 1_000));
    // A byte every 100 ms: never idle, far below the minimum rate.
    timer = setInterval(() => send(' '), 100);
  }, MIN_RATE_GRACE_MS * 4);
  clearInterval(timer);
  t.match(result.text, /^HTTP\/1\.1 408 /, '408');
  t.equal(envelopeCode(result.text), 'upload_too_slow', 'in the envelope');
  t.ok(result.closedByServer, 'the server closed the connection');
});

t.test('a body refused before it is read is drained: the keep-alive connection serves the next request', async (t) => {
  // No parser for this type: 415 before a byte of the 256 KiB body is used (more than the buffers
  // between the socket and the parser hold, so an undrained body would stall the connection).
  const body = Buffer.alloc(256 * 1024, 'b');
  const next = 'GET /v1/openapi.json HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n';
  const result = await exchange(
    (send) => send(Buffer.concat([Buffer.from(head('application/octet-stream', body.length), 'latin1'), body, Buffer.from(next, 'latin1')])),
    10_000,
  );
  const statuses = [...result.text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1]);
  t.same(statuses, ['415', '200'], 'the refusal, then the next request answered');
  t.ok(result.closedByServer, 'closed as the second request asked');
});
