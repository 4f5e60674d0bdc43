// Idempotency fingerprints are stored beside the answers they guard: a retry sent across an upgrade
// must hash exactly as the request did before it, so the formula is pinned here, not only its
// properties.
import { createHash } from 'node:crypto';

import t from 'tap';

import { directUploadFingerprint, jobCreationFingerprint, keyBoundFingerprint } from '../../src/application/request-fingerprint.js';

const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

t.test('a direct upload hashes its audio hash and its fields in name order', async (t) => {
  const upload = { sha256: 'ab'.repeat(32), fields: { model: 'svc-medical-1', language: 'en' } };
  t.equal(
    directUploadFingerprint(upload),
    sha256Hex(
      JSON.stringify({
        route: 'direct',
        sha256: upload.sha256,
        fields: [
          ['language', 'en'],
          ['model', 'svc-medical-1'],
        ],
      }),
    ),
  );
  t.equal(directUploadFingerprint({ ...upload, fields: { language: 'en', model: 'svc-medical-1' } }), directUploadFingerprint(upload), 'field order');
  t.not(directUploadFingerprint({ ...upload, sha256: 'cd'.repeat(32) }), directUploadFingerprint(upload), 'other audio');
});

t.test('a job creation hashes its body with object keys sorted, arrays kept in order', async (t) => {
  const body = { filename: 'a.wav', language_hints: ['en', 'de'], content_type: 'audio/wav', nested: { b: 1, a: 2 } };
  t.equal(
    jobCreationFingerprint(body),
    sha256Hex('{"route":"jobs","body":{"content_type":"audio/wav","filename":"a.wav","language_hints":["en","de"],"nested":{"a":2,"b":1}}}'),
  );
  t.not(jobCreationFingerprint({ ...body, language_hints: ['de', 'en'] }), jobCreationFingerprint(body), 'array order counts');
});

t.test('the two routes never share a fingerprint', async (t) => {
  t.not(directUploadFingerprint({ sha256: '', fields: {} }), jobCreationFingerprint({}));
});

t.test('a fingerprint is claimed bound to the API key that sent the request', async (t) => {
  const fingerprint = 'ef'.repeat(32);
  t.equal(keyBoundFingerprint('key_abc', fingerprint), sha256Hex(`{"key":"key_abc","fingerprint":"${fingerprint}"}`));
  t.not(keyBoundFingerprint('key_abd', fingerprint), keyBoundFingerprint('key_abc', fingerprint), 'another key: other content');
});
