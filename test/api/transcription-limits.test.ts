// The route's protective limits on a real socket: stalled and crawling uploads (408), per-key rate
// limits (429), a full engine queue (503), and graceful shutdown with a request in flight.
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';

import t from 'tap';

import { speechWav } from '../helpers/audio-fixtures.js';
import { testModelPath } from '../helpers/test-models.js';
import { postTranscription, startTestService } from '../helpers/test-service.js';

const BOUNDARY = 'svc-test-boundary';

/** Opens a multipart upload by hand, so the test controls the pace of the body. */
function slowUpload(url: string, key: string, writeBody: (write: (chunk: Buffer) => boolean) => Promise<void>) {
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = httpRequest(`${url}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'content-length': String(10_000_000),
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    // The server closes the connection after answering mid-body; that is expected here.
    req.on('error', (error) =>
      (error as NodeJS.ErrnoException).code === 'ECONNRESET' || (error as NodeJS.ErrnoException).code === 'EPIPE' ? undefined : reject(error),
    );
    req.write(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="model"\r\n\r\nsvc-medical-1\r\n`);
    req.write(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n`);
    void writeBody((chunk) => req.write(chunk));
  });
}

t.test('an upload that stalls gets 408 upload_timeout and leaves no file', async (t) => {
  const svc = await startTestService({ SVC_UPLOAD_IDLE_TIMEOUT_MS: '400', SVC_UPLOAD_MIN_BYTES_PER_SECOND: '0' });
  t.teardown(() => svc.close());
  const started = Date.now();
  const res = await slowUpload(svc.url, svc.key, async (write) => {
    write(Buffer.alloc(64 * 1024));
    // ...and nothing more.
  });
  t.equal(res.status, 408);
  t.same(res.body, { error: { code: 'upload_timeout', message: res.body.error.message } });
  t.ok(Date.now() - started < 5000, 'answered soon after the idle limit');
  t.same((await svc.blobFiles()).uploads, [], 'the partial upload was removed');
});

t.test('an upload below the minimum rate gets 408 upload_too_slow', async (t) => {
  const svc = await startTestService({
    SVC_UPLOAD_IDLE_TIMEOUT_MS: '5000',
    SVC_UPLOAD_MIN_BYTES_PER_SECOND: '200000',
    SVC_UPLOAD_MIN_RATE_GRACE_MS: '500',
  });
  t.teardown(() => svc.close());
  let stop = false;
  const res = await slowUpload(svc.url, svc.key, async (write) => {
    // About 10 KB/s: steady, but far below the 200 KB/s floor.
    while (!stop) {
      write(Buffer.alloc(1000));
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  stop = true;
  t.equal(res.status, 408);
  t.equal(res.body.error.code, 'upload_too_slow');
  t.same((await svc.blobFiles()).uploads, []);
});

t.test('per-key rate limit: 429 rate_limited with Retry-After', async (t) => {
  const svc = await startTestService();
  t.teardown(() => svc.close());
  const limited = await svc.createKey({ rateLimitPerMinute: 2 });
  const audio = { data: await readFile(await speechWav(3)), name: 'a.wav' };
  // All three at once: the bucket refills one request every 30 s, and three transcriptions one after
  // another can take that long on a loaded box, so sent in sequence the third could find a new token.
  const answers = await Promise.all([0, 1, 2].map(() => postTranscription(svc.url, limited.key, { model: 'svc-medical-1', response_format: 'json' }, audio)));
  let retryAfter: string | null = null;
  for (const res of answers) {
    if (res.status === 429) {
      retryAfter = res.headers.get('retry-after');
      t.equal(((await res.json()) as any).error.code, 'rate_limited');
    } else await res.body?.cancel();
  }
  t.same(answers.map((res) => res.status).sort(), [200, 200, 429]);
  t.ok(Number(retryAfter) >= 1, `Retry-After ${retryAfter}`);
  // Another key is not affected.
  const res = await postTranscription(svc.url, svc.key, { model: 'svc-medical-1', response_format: 'json' }, audio);
  t.equal(res.status, 200);
  await res.body?.cancel();
});

t.test('a full engine queue answers 503 capacity_unavailable, never a silent change', async (t) => {
  // tiny decodes slowly enough that concurrent requests overlap; one worker, one queue slot.
  const svc = await startTestService({
    SVC_MODEL: await testModelPath('tiny', 3),
    SVC_MAX_QUEUE: '1',
    SVC_MAX_TOKENS: '32',
    SVC_INLINE_BOUNDARY_SECONDS: '30',
  });
  t.teardown(() => svc.close());
  const audio = { data: await readFile(await speechWav(25)), name: 'a.wav' };
  const responses = await Promise.all(
    Array.from({ length: 6 }, () => postTranscription(svc.url, svc.key, { model: 'svc-medical-1', response_format: 'json' }, audio)),
  );
  const statuses = responses.map((r) => r.status).sort();
  t.comment(`statuses: ${statuses.join(',')}`);
  t.ok(statuses.includes(200), 'some were served');
  t.ok(statuses.includes(503), 'the excess was refused');
  t.ok(
    statuses.every((s) => s === 200 || s === 503),
    'nothing else',
  );
  for (const r of responses) {
    if (r.status === 503) {
      t.equal(r.headers.get('retry-after'), '5');
      t.equal(((await r.json()) as any).error.code, 'capacity_unavailable');
    } else await r.body?.cancel();
  }
  t.same((await svc.blobFiles()).uploads, []);
});

t.test('graceful shutdown finishes the request in flight', async (t) => {
  const svc = await startTestService();
  const audio = { data: await readFile(await speechWav(6)), name: 'a.wav' };
  const inFlight = postTranscription(svc.url, svc.key, { model: 'svc-medical-1', response_format: 'json' }, audio);
  await new Promise((r) => setTimeout(r, 150));
  const closing = svc.close();
  const res = await inFlight;
  t.equal(res.status, 200, 'the request in flight completed');
  t.type(((await res.json()) as any).text, 'string');
  await closing;
  await t.rejects(fetch(`${svc.url}/v1/openapi.json`), 'the listener is closed');
});
