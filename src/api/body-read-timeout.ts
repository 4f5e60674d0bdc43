// Request bodies that Fastify reads itself (JSON job creation, and any body a route does not stream)
// are held to the rules of uploads (UploadMonitor: no byte for `upload.idleTimeoutMs` -> 408
// upload_timeout; an average below `upload.minBytesPerSecond` after the grace period -> 408
// upload_too_slow). Fastify's parser waits for the declared length however long it takes, and Node's
// whole-request timeout is off for the sake of large uploads (build-app.ts): without this, a client
// that declares 100 bytes and sends 12 holds its request and connection forever. Multipart bodies
// are streamed by their routes, which run the same monitor themselves, so they are left alone here.
//
// The body reaches Fastify's parser through a pass-through that this hook can fail: the parser then
// answers the monitor's 408 in the envelope and marks the answer Connection: close (the rest of the
// body is never read), so the connection closes after it.
import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';

import type { FastifyReply, FastifyRequest } from 'fastify';

import { type UploadLimits, UploadMonitor } from './routes/upload-monitor.js';

type PreParsingDone = (error?: Error | null, payload?: Readable) => void;

export function bodyReadTimeoutHook(limits: UploadLimits) {
  return function bodyReadTimeout(request: FastifyRequest, reply: FastifyReply, payload: Readable, done: PreParsingDone): void {
    const raw = request.raw;
    if (!declaresBody(raw) || /^multipart\//i.test(raw.headers['content-type'] ?? '')) return done(null, payload);
    const body = new PassThrough();
    // Destroyed with an error only while the parser listens; never left to throw unheard.
    body.on('error', () => {});
    const monitor = new UploadMonitor(raw, limits, (error) => {
      payload.unpipe(body);
      body.destroy(error);
    });
    // A client that goes away mid-body ends the parser's wait too (pipe() forwards no errors).
    const onClose = () => {
      if (!raw.complete) body.destroy(Object.assign(new Error('the request was aborted'), { code: 'ECONNRESET' }));
    };
    raw.once('close', onClose);
    reply.raw.once('close', () => {
      monitor.stop();
      raw.off('close', onClose);
      // What nobody read of the body (a refusal before parsing) is drained by Node as it would be
      // without this hook; piping had marked the request as being consumed.
      payload.unpipe(body);
      if (!raw.complete) payload.resume();
    });
    payload.pipe(body);
    done(null, body);
  };
}

/** Whether a body follows the headers (Node has already refused a malformed Content-Length). */
function declaresBody(raw: IncomingMessage): boolean {
  if (raw.headers['transfer-encoding'] !== undefined) return true;
  const length = raw.headers['content-length'];
  return length !== undefined && length !== '0';
}
