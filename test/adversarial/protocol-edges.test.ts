// Defects the adversarial suite found below the routes, reported and not fixed yet. Each test passes
// on the correct behaviour, passes with a KNOWN DEFECT comment on exactly the reported wrong one, and
// fails on anything else (so a fix is noticed and a different failure is not hidden). The fuzz run
// counts the same triggers under lib/known-defects.ts; when a fix lands, both entries go.
import t, { type Test } from 'tap';
import { startAdversarialServer, type AdversarialServer } from './lib/adversarial-server.js';
import { bearer, statusAndCode } from './lib/raw-client.js';
import { sendRaw, type RawOutcome } from './lib/raw-http.js';
import { envelopeProblem } from './lib/response-invariants.js';

/** A short upload idle timeout, so that a fixed server would answer a stalled body quickly. */
const IDLE_TIMEOUT_MS = 1_000;

let server: AdversarialServer;
t.before(async () => {
  server = await startAdversarialServer({ SVC_UPLOAD_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS) });
});
t.teardown(() => server.stop());

function verbatim(text: string, timeoutMs = 5_000): Promise<RawOutcome> {
  return sendRaw(server.url, { method: '', target: '', headers: [], body: Buffer.alloc(0), framing: 'verbatim', verbatim: Buffer.from(text, 'latin1') }, { timeoutMs });
}

function fixedOrKnown(t: Test, outcome: RawOutcome, fixed: RegExp, known: (o: RawOutcome) => boolean, defect: string): void {
  if (known(outcome)) {
    t.comment(`KNOWN DEFECT (reported): ${defect}`);
    t.pass(`still the reported behaviour: ${statusAndCode(outcome)}`);
    return;
  }
  t.match(statusAndCode(outcome), fixed, 'fixed: an error with the contract envelope');
  if (outcome.kind === 'response') t.equal(envelopeProblem(outcome.response), null, 'the envelope');
}

const emptyBody = (status: number) => (o: RawOutcome) => o.kind === 'response' && o.response.status === status && o.response.body.length === 0;

t.test('an Expect header other than 100-continue', async (t) => {
  const outcome = await verbatim(`POST /v1/jobs HTTP/1.1\r\nHost: ${server.host}\r\nExpect: 200-ok\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
  fixedOrKnown(t, outcome, /^(417|400) /, emptyBody(417), 'Node answers 417 itself, with no body and no x-request-id');
});

t.test('an HTTP/1.1 request without Host', async (t) => {
  const outcome = await verbatim('GET /v1/openapi.json HTTP/1.1\r\nConnection: close\r\n\r\n');
  fixedOrKnown(t, outcome, /^400 invalid_request$/, emptyBody(400), "Node's requireHostHeader answers 400 itself, with no body");
});

t.test('CONNECT', async (t) => {
  const outcome = await verbatim(`CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n`);
  fixedOrKnown(t, outcome, /^(400|405) /, (o) => o.kind === 'closed', 'the connection is closed without an answer (no connect listener)');
});

t.test('a JSON body that stalls is timed out like an upload', async (t) => {
  const outcome = await sendRaw(
    server.url,
    {
      method: 'POST',
      target: '/v1/jobs',
      headers: [['Host', server.host], bearer(server.keys.valid), ['Content-Type', 'application/json'], ['Content-Length', '100']],
      body: Buffer.from('{"filename":'),
      // The declared 100 bytes never all arrive, and the client keeps the connection open.
      framing: 'none',
    },
    { timeoutMs: IDLE_TIMEOUT_MS * 5 },
  );
  fixedOrKnown(t, outcome, /^408 /, (o) => o.kind === 'timeout', 'POST /v1/jobs waits for a stalled body forever (no idle timeout outside multipart uploads)');
});
