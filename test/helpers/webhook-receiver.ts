// A real HTTPS webhook receiver on 127.0.0.1 for the delivery tests. It serves the test certificate
// (test/.cache/tls/, names hooks.test, localhost, 127.0.0.1, ::1) signed by the test CA, which the
// client side trusts through NODE_EXTRA_CA_CERTS exactly as production trusts a real CA. It records
// every request byte for byte, and the test decides each answer: a status, a delay, a redirect, a
// destroyed socket, or no answer at all.
import { existsSync, readFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import { dirname, join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';

const tlsDir = join(dirname(fileURLToPath(import.meta.url)), '..', '.cache', 'tls');

export interface ReceivedRequest {
  method: string;
  /** Path and query as requested. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Header names and values exactly as sent, in order. */
  rawHeaders: string[];
  body: Buffer;
  /** The TLS server name the client asked for (SNI), or null when it sent none. */
  servername: string | null;
  /** Date.now() when the whole body had arrived. */
  arrivedAt: number;
}

/** How to answer one request. */
export type ReceiverAnswer =
  | { status: number; headers?: Record<string, string>; body?: string | Buffer; delayMs?: number }
  | { redirect: string; status?: 301 | 302 | 303 | 307 | 308 }
  | { destroySocket: true }
  | { never: true };

/** Chooses the answer to a request; `index` counts from 0 over the receiver's life. */
export type AnswerChooser = (request: ReceivedRequest, index: number) => ReceiverAnswer;

export interface WebhookReceiver {
  port: number;
  /** https://127.0.0.1:PORT */
  origin: string;
  requests: ReceivedRequest[];
  /** Replaces how the coming requests are answered (default: 204 to everything). */
  answer(chooser: AnswerChooser | ReceiverAnswer): void;
  /** Resolves once `count` requests have arrived in all (rejects after `timeoutMs`). */
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** `port`: listen on this port (to bring a receiver that was down back at the same address). */
export async function startWebhookReceiver(
  answer: AnswerChooser | ReceiverAnswer = { status: 204 },
  options: { port?: number } = {},
): Promise<WebhookReceiver> {
  const { cert, key } = testServerCertificate();
  let chooser = toChooser(answer);
  const requests: ReceivedRequest[] = [];
  const waiters = new Set<() => void>();
  const timers = new Set<NodeJS.Timeout>();

  const server: Server = createServer({ cert, key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const servername = (req.socket as TLSSocket).servername;
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks),
        servername: typeof servername === 'string' && servername !== '' ? servername : null,
        arrivedAt: Date.now(),
      };
      const index = requests.push(received) - 1;
      for (const wake of waiters) wake();
      const reply = chooser(received, index);
      if ('never' in reply) return;
      if ('destroySocket' in reply) {
        req.socket.destroy();
        return;
      }
      if ('redirect' in reply) {
        res.writeHead(reply.status ?? 302, { location: reply.redirect }).end();
        return;
      }
      const send = () => res.writeHead(reply.status, reply.headers).end(reply.body);
      if (!reply.delayMs) return send();
      const timer = setTimeout(() => {
        timers.delete(timer);
        send();
      }, reply.delayMs);
      timers.add(timer);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('webhook receiver: no TCP address');
  const port = address.port;

  return {
    port,
    origin: `https://127.0.0.1:${port}`,
    requests,
    answer: (next) => {
      chooser = toChooser(next);
    },
    waitForRequests: (count, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (requests.length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(requests.slice());
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`webhook receiver: ${requests.length} of ${count} requests after ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.close(() => resolve());
        // Requests left unanswered on purpose still hold their connections open.
        server.closeAllConnections();
      }),
  };
}

function toChooser(answer: AnswerChooser | ReceiverAnswer): AnswerChooser {
  return typeof answer === 'function' ? answer : () => answer;
}

/** The server certificate, or a clear instruction when tests run outside `npm test`. */
function testServerCertificate(): { cert: Buffer; key: Buffer } {
  const certPath = join(tlsDir, 'server.pem');
  const keyPath = join(tlsDir, 'server-key.pem');
  const caPath = join(tlsDir, 'ca.pem');
  const trusted = process.env.NODE_EXTRA_CA_CERTS;
  // The variable is read once at process start, so the check is whether this process trusts our CA.
  const ready =
    [certPath, keyPath, caPath].every((path) => existsSync(path)) &&
    !!trusted &&
    existsSync(trusted) &&
    readFileSync(trusted, 'utf8').includes(readFileSync(caPath, 'utf8').trim());
  if (!ready) {
    throw new Error(
      'webhook receiver: this process does not trust the test certificate authority. `npm test` sets this up; ' +
        'to run a test file on its own, run `node scripts/make-test-certificates.mjs` and set NODE_EXTRA_CA_CERTS ' +
        'as it prints (e.g. `eval "$(node scripts/make-test-certificates.mjs)"`), then start the test again.',
    );
  }
  return { cert: readFileSync(certPath), key: readFileSync(keyPath) };
}
