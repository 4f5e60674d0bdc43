// Issue 44.1: each request field is declared once (src/contract/request-fields.ts), and the parsers and
// the OpenAPI document derive from that table. Each route's parser takes exactly the table's names for
// it (aliases included) and refuses any other as unknown; the document describes exactly the names
// that are not aliases, with each alias's own name among them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

import { schemas } from '../../src/api/openapi-components.js';
import { parseJobCreation } from '../../src/api/routes/job-creation-request.js';
import { parseStart } from '../../src/contract/realtime-start.js';
import { requireEntitlements } from '../../src/contract/request-entitlements.js';
import { documentedFields, fieldNamesOf, REQUEST_FIELDS, REQUEST_ROUTES, type RequestRoute, requiredFieldsOf } from '../../src/contract/request-fields.js';
import { parseTranscriptionFields } from '../../src/contract/transcription-request.js';
import { parseTranslationFields } from '../../src/contract/translation-request.js';
import type { ApiKeyRecord } from '../../src/domain/api-keys.js';
import { keyRecord } from '../helpers/key-record.js';
import { sourceFiles } from '../helpers/source-imports.js';

const key = keyRecord({ plan: 'enterprise', entitlements: ['patterns', 'language_detection'] });

/** What the route's parser says of a request that carries `name` (with a value it may refuse): null when it took it. */
function refusal(route: RequestRoute, name: string): string | null {
  try {
    if (route === 'jobs') parseJobCreation({ filename: 'a.wav', content_type: 'audio/wav', content_length_bytes: 10, [name]: 'x' }, key);
    else (route === 'transcriptions' ? parseTranscriptionFields : parseTranslationFields)({ model: 'svc-medical-1', [name]: 'x' }, key);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}
const unknown = (message: string | null) => message !== null && / that is not one of: /.test(message);

const DOCUMENTS: Record<RequestRoute, string> = { transcriptions: 'TranscriptionRequest', translations: 'TranslationRequest', jobs: 'JobCreationRequest' };

for (const route of REQUEST_ROUTES) {
  t.test(`${route}: the parser takes the table's names and no other`, async (t) => {
    const names = fieldNamesOf(route);
    t.ok(names.length >= 7, names.join(', '));
    for (const name of names) t.notOk(unknown(refusal(route, name)), `${name} is taken (or refused for its value, not its name)`);
    for (const name of ['languag', 'redact_pii', 'file_name']) t.ok(unknown(refusal(route, name)), `${name} is refused as unknown`);
    const transcriptionOnly = fieldNamesOf('transcriptions').find((name) => !names.includes(name));
    if (transcriptionOnly) t.notOk(refusal(route, transcriptionOnly) === null, `${transcriptionOnly} is not taken`);
  });

  t.test(`${route}: the document describes the table's names, aliases under their own`, async (t) => {
    const documented = Object.keys((schemas[DOCUMENTS[route]].properties ?? {}) as object).filter((name) => name !== 'file');
    const aliases = fieldNamesOf(route).filter((name) => REQUEST_FIELDS[name].routes[route as never] === 'alias');
    t.same(
      documented.sort(),
      fieldNamesOf(route)
        .filter((name) => !aliases.includes(name))
        .sort(),
    );
    for (const alias of aliases) t.ok(documented.includes(`${alias}[]`), `${alias} is documented as ${alias}[]`);
  });
}

t.test('a form sends a JSON-valued field as JSON text, whose schema is the JSON body’s', async (t) => {
  const form = documentedFields('transcriptions', 'form');
  const body = documentedFields('jobs', 'json');
  for (const name of ['vocabulary', 'language_hints', 'keywords']) {
    t.equal(form[name].type, 'string', `${name} on the form`);
    t.equal(form[name].contentMediaType, 'application/json');
    const { description: _formNote, ...formValue } = body[name];
    t.same(form[name].contentSchema, formValue, `${name}: the same value as the job body's`);
  }
  t.same(form.diarize, body.diarize, 'a boolean is the same on both');
});

t.test('one decision on entitlements: requireEntitlements', async (t) => {
  const none = { entitlements: [] as ApiKeyRecord['entitlements'] };
  t.doesNotThrow(() => requireEntitlements({ autoLanguage: false, patterns: [] }, none), 'nothing asked, nothing needed');
  t.throws(() => requireEntitlements({ autoLanguage: true }, none), { message: 'this key is not entitled to automatic language detection' });
  t.throws(() => requireEntitlements({ patterns: ['\\d{3}'] }, { entitlements: ['language_detection'] }), { message: 'this key is not entitled to patterns' });
  t.doesNotThrow(() => requireEntitlements({ autoLanguage: true, patterns: ['\\d{3}'] }, key));
  // A second copy of the decision would drift from the table: no request parser asks the key itself.
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const copies = sourceFiles(root, 'src')
    .filter((file) => !['src/contract/request-entitlements.ts', 'src/api/authenticate.ts'].includes(file) && !file.startsWith('src/store/'))
    .filter((file) => readFileSync(join(root, file), 'utf8').includes('entitlements.includes('));
  t.same(copies, [], 'call requireEntitlements (src/contract/request-entitlements.ts)');
});

// Issue 44.1 for the realtime start: its names are the table's (route `realtime`), the fields it shares
// with the HTTP requests declared once there, its own beside them; the parser takes those and no other.
const START = {
  type: 'start',
  api_key: 'svc_x',
  streaming_mode: 'realtime',
  audio: { encoding: 'pcm16', sample_rate: 16000, channels: 1 },
  language: 'en',
  event_schema: 'svc-agent-v1',
  session_id: 's1',
};

/** What the start parser says of a start that carries `name` (with a value it may refuse): null when it took it. */
function startRefusal(name: string): string | null {
  try {
    parseStart(new TextEncoder().encode(JSON.stringify({ ...START, [name]: 'x' })));
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

t.test("realtime: the start parser takes the table's names and no other", async (t) => {
  const names = fieldNamesOf('realtime');
  for (const name of names) t.notOk(unknown(startRefusal(name)), `${name} is taken (or refused for its value, not its name)`);
  const httpOnly = [...new Set(REQUEST_ROUTES.flatMap((route) => fieldNamesOf(route)))].filter((name) => !names.includes(name));
  t.ok(httpOnly.length > 10, httpOnly.join(', '));
  for (const name of [...httpOnly, 'languag', 'colour']) t.ok(unknown(startRefusal(name)), `${name} is refused as unknown`);
  t.equal(startRefusal('model'), 'model must be one of svc-medical-1, svc-medical-edge-1', 'a shared field is read by its rules');
  t.doesNotThrow(() => parseStart(new TextEncoder().encode(JSON.stringify(START))), 'the required fields make a start');
  t.same(
    requiredFieldsOf('realtime').sort(),
    Object.keys(START)
      .filter((name) => name !== 'api_key')
      .sort(),
    'required as the table says',
  );
});

t.test('realtime: the fields it shares with the HTTP requests are declared once, in the table', async (t) => {
  const shared = fieldNamesOf('realtime').filter((name) => REQUEST_ROUTES.some((route) => REQUEST_FIELDS[name].routes[route as never] !== undefined));
  t.same(shared.sort(), ['dictionary', 'language', 'model', 'patterns', 'redact', 'redact_substitution', 'smart_format', 'vocabulary'].sort());
  const own = fieldNamesOf('realtime').filter((name) => !shared.includes(name));
  t.same(own.sort(), ['api_key', 'audio', 'client_secret', 'diarization', 'event_schema', 'session_id', 'streaming_mode', 'type'].sort());
  // The patterns entitlement is the table's, whichever request asks for patterns.
  t.equal(REQUEST_FIELDS.patterns.entitlement, 'patterns');
  const documented = Object.keys((schemas.RealtimeStartMessage.properties ?? {}) as object);
  t.same(documented.sort(), fieldNamesOf('realtime').sort(), 'the OpenAPI document describes the start from the same table');
});
