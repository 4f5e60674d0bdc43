// A key's standing smart_format and redaction (src/contract/key-text-defaults.ts) as the three HTTP
// parsers apply them: a default a request may override, a redaction it may only add to, and the routes
// that cannot redact refusing such a key rather than answering unredacted.
import t from 'tap';

import { parseJobCreation } from '../../src/api/routes/job-creation-request.js';
import { parseTranscriptionFields } from '../../src/contract/transcription-request.js';
import { parseTranslationFields } from '../../src/contract/translation-request.js';
import type { ApiKeyRecord } from '../../src/domain/api-keys.js';
import { EntitlementMissing, UnprocessableRequest } from '../../src/pipeline/pipeline-errors.js';
import { keyRecord } from '../helpers/key-record.js';

function keyWith(standing: Partial<Pick<ApiKeyRecord, 'smartFormatDefault' | 'redactAlways'>>): ApiKeyRecord {
  return keyRecord(standing);
}

const upload = (fields: Record<string, string>, key: ApiKeyRecord) => parseTranscriptionFields({ model: 'svc-medical-1', ...fields }, key).clinicalText;
const job = (fields: Record<string, unknown>, key: ApiKeyRecord) =>
  parseJobCreation({ filename: 'a.wav', content_type: 'audio/wav', content_length_bytes: 10, ...fields }, key).request.clinicalText;

t.test("smart_format: the key's default where the request is silent; the request's own value wins", async (t) => {
  const formats = keyWith({ smartFormatDefault: true });
  t.equal(upload({}, formats).smartFormat, true);
  t.equal(upload({ smart_format: 'false' }, formats).smartFormat, false);
  t.equal(job({}, formats).smartFormat, true);
  t.equal(job({ smart_format: false }, formats).smartFormat, false);
  t.equal(upload({}, keyWith({})).smartFormat, false, 'off by default');
  t.equal(upload({ smart_format: 'true' }, keyWith({})).smartFormat, true);
  t.equal(upload({ stream: 'true' }, formats).smartFormat, true, 'a stream too (its deltas are of the formatted text)');
});

t.test('redaction: the standing policies always, a request adding its own', async (t) => {
  const redacts = keyWith({ redactAlways: ['identifiers'] });
  t.same(upload({}, redacts).redact, ['identifiers']);
  t.same(upload({ redact: 'health' }, redacts).redact, ['identifiers', 'health']);
  t.same(upload({ redact: 'identifiers' }, redacts).redact, ['identifiers']);
  t.same(job({}, redacts).redact, ['identifiers']);
  t.same(job({ redact: 'medication' }, redacts).redact, ['identifiers', 'medication']);
  t.equal(upload({}, keyWith({})).redact, null);
});

t.test('what cannot be redacted is refused for a key that must redact, naming why', async (t) => {
  const redacts = keyWith({ redactAlways: ['identifiers'] });
  t.same(upload({ stream: 'true' }, redacts).redact, ['identifiers'], "a stream's deltas are redacted");
  for (const refused of [
    () => upload({ redact_output: 'redacted_and_unredacted', webhook_url: 'https://example.com/hook' }, redacts),
    () => job({ redact_output: 'redacted_and_unredacted' }, redacts),
  ]) {
    const error = t.throws(refused) as UnprocessableRequest;
    t.type(error, UnprocessableRequest);
    t.match(error.message, /standing redaction.*redact_output must be redacted/, 'no unredacted copy is kept');
  }
  const logprobs = t.throws(() => upload({ 'include[]': 'logprobs', response_format: 'json' }, redacts)) as UnprocessableRequest;
  t.match(logprobs.message, /include\[\]=logprobs cannot be redacted/);
  const translation = t.throws(() => parseTranslationFields({ model: 'svc-medical-1' }, redacts));
  t.type(translation, EntitlementMissing);
  t.match((translation as Error).message, /translations cannot be redacted/);
  t.equal(
    parseTranslationFields({ model: 'svc-medical-1' }, keyWith({ smartFormatDefault: true })).clinicalText.smartFormat,
    false,
    'English out: no formatting',
  );
});
