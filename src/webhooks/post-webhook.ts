// One delivery attempt: a POST to the address the destination check just validated — never a fresh
// DNS lookup, so a rebinding answer cannot redirect it — with TLS verified for the host name against
// the default trust store (plus NODE_EXTRA_CA_CERTS). Redirects are reported, never followed. The
// whole attempt has one deadline, and every failure becomes an outcome rather than an exception,
// because the caller's only job with it is to record it and schedule the next attempt.
import { request } from 'node:https';
import { isIP } from 'node:net';
import { checkServerIdentity } from 'node:tls';

import { attemptFailureSummary, type AttemptPhase } from './attempt-failure-summary.js';
import type { ValidatedDestination } from './validate-destination.js';

export interface AttemptOutcome {
  /** True only for a 2xx. */
  delivered: boolean;
  /** HTTP status when a response arrived. */
  status: number | null;
  /**
   * Short operator-facing summary, e.g. 'http 204', 'http 500', 'redirect 302 not followed',
   * 'timeout after 10000 ms', 'connect ECONNREFUSED', 'tls CERT_...'. Never response body content.
   */
  summary: string;
}

// Enough to let a well-behaved receiver finish its answer; the content is never read.
const MAX_DRAINED_BYTES = 64 * 1024;

// Set by us from the destination and the body; a caller's copy would contradict them.
const OWN_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

/**
 * One POST to exactly `destination.address`, TLS verified against `destination.hostname`, redirects
 * never followed, the whole attempt (connect, response, draining a capped amount of body) bounded by
 * `timeoutMs`. Never throws.
 */
export function postWebhook(destination: ValidatedDestination, headers: Record<string, string>, body: Buffer, timeoutMs: number): Promise<AttemptOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    let status: number | null = null;
    let phase: AttemptPhase = 'connect';
    const requestHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) if (!OWN_HEADERS.has(name.toLowerCase())) requestHeaders[name] = value;
    // url.host keeps IPv6 brackets and a non-default port, as the Host header needs them.
    requestHeaders.host = destination.url.host;
    requestHeaders['content-length'] = String(body.length);

    let req: ReturnType<typeof request>;
    const timer = setTimeout(() => {
      // A receiver that answered with a status and then stalls its body has still answered.
      finish(status === null ? { delivered: false, status: null, summary: `timeout after ${timeoutMs} ms` } : statusOutcome(status));
    }, timeoutMs);
    function finish(outcome: AttemptOutcome) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req?.destroy();
      resolve(outcome);
    }

    try {
      req = request({
        host: destination.address,
        family: destination.family,
        port: destination.port,
        path: `${destination.url.pathname}${destination.url.search}`,
        method: 'POST',
        headers: requestHeaders,
        // SNI carries names only; an IP-literal destination sends none.
        servername: isIP(destination.hostname) === 0 ? destination.hostname : '',
        // We connect to an address, so say which name the certificate must be valid for.
        checkServerIdentity: (_host, certificate) => checkServerIdentity(destination.hostname, certificate),
        // A fresh connection per attempt: no pooled socket from an earlier, differently validated one.
        agent: false,
      });
    } catch (error) {
      // Only a malformed request gets here (e.g. a header value the HTTP layer rejects).
      finish({ delivered: false, status: null, summary: attemptFailureSummary('connection', error) });
      return;
    }
    req.on('socket', (socket) => {
      socket.once('connect', () => {
        if (phase === 'connect') phase = 'tls';
      });
      socket.once('secureConnect', () => {
        phase = 'connection';
      });
    });
    req.on('response', (res) => {
      status = res.statusCode ?? 0;
      const outcome = statusOutcome(status);
      let drained = 0;
      res.on('data', (chunk: Buffer) => {
        drained += chunk.length;
        if (drained > MAX_DRAINED_BYTES) finish(outcome);
      });
      res.on('end', () => finish(outcome));
      res.on('error', () => finish(outcome));
      res.on('close', () => finish(outcome));
    });
    req.on('error', (error) =>
      finish(status === null ? { delivered: false, status: null, summary: attemptFailureSummary(phase, error) } : statusOutcome(status)),
    );
    req.end(body);
  });
}

function statusOutcome(status: number): AttemptOutcome {
  if (status >= 200 && status < 300) return { delivered: true, status, summary: `http ${status}` };
  if (status >= 300 && status < 400) return { delivered: false, status, summary: `redirect ${status} not followed` };
  return { delivered: false, status, summary: `http ${status}` };
}
