// smart_format and redact in a realtime session (issues 45.3, 46.1), end to end on the real service
// (engine, Silero VAD, `ws`). A generated model's words are noise, so what holds whatever was said is
// asserted: while redacting no partial is sent (a half turn may cut a name in two), every turn_final
// says how many of each class it redacted, the final record lists where (seconds) and how many, and a
// bad value is refused at the start, naming the field and never the value. What is shown of given
// words: the unit test below, on text.
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { NO_CLINICAL_TEXT } from '../../src/contract/clinical-text-fields.js';
import { ShownTurnText } from '../../src/realtime/shown-turn-text.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { connectRealtime, startMessage, wavPcm } from '../helpers/realtime-client.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let speech: Uint8Array;

t.before(async () => {
  speech = wavPcm(await readFile(await speechWav(8)));
  svc = await startTestService({ SVC_REALTIME_TRANSPORT: 'ws' });
});
t.teardown(() => svc.close());

async function session(fields: Record<string, unknown>, key = svc.key) {
  const c = await connectRealtime(svc.service.realtime!.url);
  c.start(startMessage(key, fields));
  await c.next('ready');
  await c.stream(speech, { pace: 4 });
  c.stop();
  return { events: c.events, closed: await c.closed };
}

t.test('redacting: no partials, each turn_final counts its redactions, the final record says where', async (t) => {
  const { events, closed } = await session({ redact: 'identifiers', redact_substitution: 'hash' });
  t.equal(closed.code, 1000);
  t.notOk(
    events.some((e) => e.type === 'partial'),
    'no partial while redacting',
  );
  const finals = events.filter((e) => e.type === 'turn_final');
  t.ok(finals.length > 0, 'turns');
  for (const f of finals) {
    t.type(f.redaction_counts, 'object', `${f.turn_id}: its counts`);
    t.ok(
      f.confidence === null || ((f.confidence as number) >= 0 && (f.confidence as number) <= 1),
      `${f.turn_id}: its confidence ${JSON.stringify(f.confidence)}`,
    );
  }
  const final = events.at(-1)!;
  t.equal(final.type, 'final');
  t.ok(Array.isArray(final.redactions), 'the session’s redactions');
  t.type(final.redaction_counts, 'object');
  for (const r of final.redactions as Array<{ start: number; end: number }>) t.ok(r.start >= 0 && r.end <= (final.audio_seconds as number) + 1);
});

t.test('smart_format alone: partials still come, nothing is said of redaction', async (t) => {
  const { events, closed } = await session({ smart_format: true });
  t.equal(closed.code, 1000);
  t.ok(events.some((e) => e.type === 'turn_final'));
  t.notOk(
    events.some((e) => 'redaction_counts' in e || 'redactions' in e),
    'no redaction fields',
  );
});

t.test("a key's standing redaction and smart_format apply though the start does not ask", async (t) => {
  const standing = await svc.createKey({ redactAlways: ['identifiers'], smartFormatDefault: true });
  const { events, closed } = await session({}, standing.key);
  t.equal(closed.code, 1000);
  t.notOk(
    events.some((e) => e.type === 'partial'),
    'withheld as when the start asks',
  );
  for (const f of events.filter((e) => e.type === 'turn_final')) t.type(f.redaction_counts, 'object', `${f.turn_id}: redacted`);
  t.type(events.at(-1)!.redaction_counts, 'object', 'the final record says what was redacted');
});

t.test('a bad value is refused at the start, naming the field and never the value', async (t) => {
  for (const [fields, message] of [
    [{ redact: 'identifiers,canary_name' }, /^redact has a policy not known/],
    [{ smart_format: 'true' }, /^smart_format must be true or false/],
    [{ redact_substitution: 'hash' }, /^redact_substitution needs redact/],
  ] as const) {
    const c = await connectRealtime(svc.service.realtime!.url);
    c.start(startMessage(svc.key, fields));
    const error = await c.next('error');
    t.equal(error.code, 'invalid_request');
    t.match(error.message, message);
    t.notOk(String(error.message).includes('canary'), 'not echoed');
    await c.closed;
  }
});

t.test('what a turn shows of given words', async (t) => {
  const turn = { turnId: 't1', text: 'My name is John Smith, call me at five five five, zero one nine two. Give twenty five milligrams.', start: 3, end: 9 };
  const both = new ShownTurnText({ ...NO_CLINICAL_TEXT, smartFormat: true, redact: ['identifiers'] }, 'en');
  t.equal(both.partial(turn.text), null, 'partials withheld');
  const shown = both.final(turn);
  t.equal(shown.turn.text, 'My name is [PERSON_NAME], call me at [PHONE_NUMBER]. Give 25 mg.');
  t.same(shown.counts, { person_name: 1, phone_number: 1 });
  t.same(both.report.redactions, [
    { type: 'person_name', start: 3, end: 9 },
    { type: 'phone_number', start: 3, end: 9 },
  ]);
  const formatting = new ShownTurnText({ ...NO_CLINICAL_TEXT, smartFormat: true }, 'en');
  t.equal(formatting.partial('give twenty five milligrams'), 'give 25 mg', 'a partial is formatted');
  t.same(formatting.final(turn).counts, null, 'nothing redacted when not asked');
  const spanish = new ShownTurnText({ ...NO_CLINICAL_TEXT, smartFormat: true }, 'es');
  t.equal(spanish.partial('twenty five milligrams'), 'twenty five milligrams', 'only English is formatted');
});
