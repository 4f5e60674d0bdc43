// Our webhook signature against independent verifiers: the Standard Webhooks reference library and
// Svix's (what receivers are told to use) verify our headers unchanged, and reject tampered bodies,
// stale or future timestamps and other secrets. Known-answer vectors pin the exact bytes signed.
import { createHmac } from 'node:crypto';

import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import t from 'tap';

import { generateSigningSecret, signingKeyOf } from '../../src/store/webhook-signing-secret.js';
import { webhookSignature, webhookSignatures } from '../../src/webhooks/sign-webhook.js';

const EVENT_ID = 'evt_2b8cQm1RkT0aZ9yXw4VuLs';
// Non-ASCII on purpose: the signature covers the UTF-8 bytes sent, not a re-serialised string.
const BODY = Buffer.from(
  JSON.stringify({
    id: EVENT_ID,
    type: 'transcription.job.succeeded',
    created: '2031-01-02T03:04:05.000Z',
    data: { job_id: 'job_Müller_ß_🩺', status: 'succeeded', poll_url: 'https://stt.example.com/v1/jobs/job_1' },
  }),
  'utf8',
);

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The headers our delivery worker sends, signed by us. */
function signedHeaders(key: Buffer, timestamp: number, body: Buffer = BODY) {
  return {
    'webhook-id': EVENT_ID,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': webhookSignature(key, EVENT_ID, timestamp, body),
  };
}

/** The same values under Svix's branded header names. */
function svixHeaders(headers: ReturnType<typeof signedHeaders>) {
  return { 'svix-id': headers['webhook-id'], 'svix-timestamp': headers['webhook-timestamp'], 'svix-signature': headers['webhook-signature'] };
}

/** Every way a receiver might verify: both libraries, both header spellings for Svix. */
function verifiers(secret: string) {
  return {
    standardwebhooks: (body: Buffer, headers: ReturnType<typeof signedHeaders>) => new StandardWebhook(secret).verify(body, headers),
    'svix (webhook-* headers)': (body: Buffer, headers: ReturnType<typeof signedHeaders>) => new SvixWebhook(secret).verify(body, headers),
    'svix (svix-* headers)': (body: Buffer, headers: ReturnType<typeof signedHeaders>) => new SvixWebhook(secret).verify(body, svixHeaders(headers)),
  };
}

t.test('a generated secret is whsec_ + base64 of 32 bytes, and signingKeyOf gives its key back', async (t) => {
  const { secret, key } = generateSigningSecret();
  t.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.equal(key.length, 32);
  t.same(signingKeyOf(secret), key);
  t.not(generateSigningSecret().secret, secret, 'random each time');
});

t.test('both libraries verify our signature unchanged and return the payload', async (t) => {
  const { secret, key } = generateSigningSecret();
  const headers = signedHeaders(key, nowSeconds());
  t.match(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]{43}=$/);
  for (const [name, verify] of Object.entries(verifiers(secret))) {
    t.same(verify(BODY, headers), JSON.parse(BODY.toString('utf8')), name);
  }
  // Within the 5-minute window on either side is accepted (well inside it, so the clock cannot matter).
  for (const offset of [-240, 240]) {
    const near = signedHeaders(key, nowSeconds() + offset);
    for (const [name, verify] of Object.entries(verifiers(secret))) t.doesNotThrow(() => verify(BODY, near), `${name}, ${offset} s`);
  }
});

t.test('a header with several signatures (a rotation overlap) verifies with any one of the secrets, and no other', async (t) => {
  const current = generateSigningSecret();
  const previous = generateSigningSecret();
  const stranger = generateSigningSecret();
  const timestamp = nowSeconds();
  const headers = { ...signedHeaders(current.key, timestamp), 'webhook-signature': webhookSignatures([current.key, previous.key], EVENT_ID, timestamp, BODY) };
  const [first, second, ...rest] = headers['webhook-signature'].split(' ');
  t.equal(first, webhookSignature(current.key, EVENT_ID, timestamp, BODY), 'space-separated, the first key first');
  t.equal(second, webhookSignature(previous.key, EVENT_ID, timestamp, BODY));
  t.same(rest, []);
  for (const [holder, secret] of [
    ['only the new secret', current.secret],
    ['only the old secret', previous.secret],
  ]) {
    for (const [name, verify] of Object.entries(verifiers(secret!))) t.same(verify(BODY, headers), JSON.parse(BODY.toString('utf8')), `${name}, ${holder}`);
  }
  for (const [name, verify] of Object.entries(verifiers(stranger.secret))) {
    t.throws(() => verify(BODY, headers), { message: /no matching signature/i }, `${name}, another secret`);
  }
  t.throws(() => webhookSignatures([], EVENT_ID, timestamp, BODY), RangeError, 'never an empty header');
});

t.test('a tampered body, a stale or future timestamp and another secret all fail in both', async (t) => {
  const { secret, key } = generateSigningSecret();
  const now = nowSeconds();
  const tampered = Buffer.from(BODY);
  tampered[tampered.indexOf('succeeded')] ^= 0x20;
  const other = generateSigningSecret();
  // Time only moves forward during the test: 301 s old stays too old. A future one needs margin.
  const cases: Array<[string, Buffer, ReturnType<typeof signedHeaders>, string, RegExp]> = [
    ['tampered body', tampered, signedHeaders(key, now), secret, /no matching signature/i],
    ['timestamp 301 s old', BODY, signedHeaders(key, now - 301), secret, /too old/i],
    ['timestamp an hour old', BODY, signedHeaders(key, now - 3600), secret, /too old/i],
    ['timestamp 360 s ahead', BODY, signedHeaders(key, now + 360), secret, /too new/i],
    ['signed with another secret', BODY, signedHeaders(other.key, now), secret, /no matching signature/i],
    ['verified with another secret', BODY, signedHeaders(key, now), other.secret, /no matching signature/i],
  ];
  for (const [what, body, headers, verifyWith, message] of cases) {
    for (const [name, verify] of Object.entries(verifiers(verifyWith))) {
      t.throws(() => verify(body, headers), { name: 'WebhookVerificationError', message }, `${what}: ${name}`);
    }
  }
  // A signature copied onto another timestamp (a replay with a fresh header) does not verify.
  const replayed = { ...signedHeaders(key, now - 60), 'webhook-timestamp': String(now) };
  for (const [name, verify] of Object.entries(verifiers(secret))) {
    t.throws(() => verify(BODY, replayed), { message: /no matching signature/i }, `replayed timestamp: ${name}`);
  }
});

t.test('known answer: HMAC-SHA256 over `${id}.${timestamp}.` and the raw body bytes', async (t) => {
  const key = Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7 + 1));
  const timestamp = 1_924_992_000;
  // Not valid UTF-8: the raw bytes are signed as they are, never decoded and re-encoded.
  const body = Buffer.concat([Buffer.from('{"data":"', 'utf8'), Buffer.from([0xff, 0xfe, 0x00, 0xc3]), Buffer.from('"}', 'utf8')]);
  const expected = createHmac('sha256', key);
  expected.update(Buffer.from(EVENT_ID, 'ascii'));
  expected.update(Buffer.from([0x2e]));
  expected.update(Buffer.from(String(timestamp), 'ascii'));
  expected.update(Buffer.from([0x2e]));
  expected.update(body);
  t.equal(webhookSignature(key, EVENT_ID, timestamp, body), `v1,${expected.digest('base64')}`);
});

t.test('known answer: the published Standard Webhooks / Svix example vector', async (t) => {
  const key = signingKeyOf('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
  t.equal(key.length, 24, 'the contract allows keys down to 24 bytes');
  t.equal(
    webhookSignature(key, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, Buffer.from('{"test": 2432232314}', 'utf8')),
    'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  );
});

t.test('signingKeyOf refuses malformed secrets without echoing them', async (t) => {
  const base64Of = (bytes: number) => Buffer.alloc(bytes, 0x5a).toString('base64');
  t.equal(signingKeyOf(`whsec_${base64Of(64)}`).length, 64, '64 bytes is the upper bound');
  const malformed: Array<[string, RegExp]> = [
    [base64Of(32), /starts with whsec_/],
    [`WHSEC_${base64Of(32)}`, /starts with whsec_/],
    ['whsec_', /24 to 64 bytes/],
    [`whsec_${base64Of(16)}`, /24 to 64 bytes/],
    [`whsec_${base64Of(65)}`, /24 to 64 bytes/],
    [`whsec_${base64Of(32).replace(/=$/, '')}`, /followed by base64/],
    [`whsec_${Buffer.alloc(32, 0xfb).toString('base64url')}`, /followed by base64/],
    [`whsec_${base64Of(32)} `, /followed by base64/],
  ];
  for (const [secret, message] of malformed) {
    let error: Error | undefined;
    try {
      signingKeyOf(secret);
    } catch (caught) {
      error = caught as Error;
    }
    t.match(error, { message }, JSON.stringify(secret));
    if (secret.length > 6) t.notOk(error?.message.includes(secret.slice(6)), 'the message does not contain the value');
  }
});

t.test('webhookSignature takes whole Unix seconds only', async (t) => {
  const { key } = generateSigningSecret();
  t.throws(() => webhookSignature(key, EVENT_ID, Date.now() / 1000, BODY), RangeError);
  t.throws(() => webhookSignature(key, EVENT_ID, Number.NaN, BODY), RangeError);
});
