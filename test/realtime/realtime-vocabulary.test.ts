// The clinical vocabulary and patterns in realtime, end to end on the real service (engine, Silero
// VAD, SQLite keys, `ws`): `start` takes terms and patterns by the upload's rules, the key's stored
// dictionary joins them unless `dictionary: false`, `update_vocabulary` is acknowledged and applies
// from the next turn, turn_finals say what the guard dropped and whether the safety check fell back,
// and `final` carries the session's vocabulary audit and pattern report in the upload's shapes. The
// wording-dependent rules themselves are tested on recorded engine outputs (turn-recognition.test.ts).
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { speechWav } from '../helpers/audio-fixtures.js';
import { connectRealtime, startMessage, wavPcm } from '../helpers/realtime-client.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let svc: TestService;
let speech: Uint8Array; // 8 s: two sentences with a pause between

t.before(async () => {
  speech = wavPcm(await readFile(await speechWav(8)));
  svc = await startTestService({ SVC_REALTIME_TRANSPORT: 'ws' });
});
t.teardown(() => svc.close());

/**
 * A session of `speech` at 4x real time with `fields` in its start, sending `during` after the first
 * turn_final and before `stop` (on a loaded machine the first turn may end only after the audio is sent).
 * With `during`, a second of silence follows the speech: a turn ends only after 0.6 s of silence, the
 * recording's one long pause (0.76 s, at 3.2 s) leaves about that once the VAD's padding and Silero's
 * offset take their share, and the recording ends mid-sentence; so without a silent tail whether any
 * turn ended before `stop` hung on where the VAD put the first sentence's end (an idle timeout on one
 * fresh-clone CI run of four on 2026-11-27, and on one the day before).
 */
async function session(key: string, fields: Record<string, unknown>, during?: Record<string, unknown>) {
  const c = await connectRealtime(svc.service.realtime!.url);
  c.start(startMessage(key, fields));
  await c.next('ready');
  await c.stream(during ? withSilentTail(speech, 1) : speech, { pace: 4 });
  if (during) {
    await c.next('turn_final');
    c.socket.send(JSON.stringify(during));
  }
  c.stop();
  const closed = await c.closed;
  return { events: c.events, closed };
}

/** 16-bit PCM at 16 kHz followed by `seconds` of digital silence. */
function withSilentTail(pcm: Uint8Array, seconds: number): Uint8Array {
  const out = new Uint8Array(pcm.length + Math.round(seconds * 16_000) * 2);
  out.set(pcm);
  return out;
}

t.test('start with vocabulary and the key dictionary: turns decoded with them, final audits the session in the upload shape', async (t) => {
  const { key, id } = await svc.createKey({ entitlements: ['patterns'] });
  await svc.setDictionary(id, 'en', ['warfarin']);
  const { events, closed } = await session(key, { vocabulary: ['metoprolol', 'tachycardia'], patterns: ['BP \\d+/\\d+'] });
  t.equal(closed.code, 1000);
  const finals = events.filter((e) => e.type === 'turn_final');
  t.ok(finals.length > 0, 'turns');
  for (const f of finals) {
    t.type(f.dropped_segments, 'number', 'each turn_final says how many segments the guard dropped');
    t.type(f.safety_fallback, 'boolean', 'and, with vocabulary, whether the safety check fell back');
  }
  const final = events.at(-1)!;
  t.equal(final.type, 'final');
  t.match(final.vocabulary, { enabled: true, requested_terms: 3, mode: 'direct' }, 'request terms and the dictionary, merged');
  const vocabulary = final.vocabulary as Record<string, unknown>;
  for (const field of ['applied_terms', 'suspect_terms', 'safety_fallback', 'fallback_chunks', 'fallback_reasons', 'corrections'])
    t.ok(field in vocabulary, `the audit's ${field}`);
  t.match(final.patterns, { schema: 'svc-patterns-v1' }, 'the pattern report, in the upload shape');

  const plain = await session(key, { vocabulary: ['metoprolol'], dictionary: false });
  t.match(plain.events.at(-1)!.vocabulary, { enabled: true, requested_terms: 1 }, 'dictionary: false leaves the stored terms out');
  t.notOk('patterns' in plain.events.at(-1)!, 'no pattern report without patterns');
  const none = await session(key, { dictionary: false });
  t.match(none.events.at(-1)!.vocabulary, { enabled: false }, 'no terms: the audit says so');
  t.notOk(
    none.events.filter((e) => e.type === 'turn_final').some((f) => 'safety_fallback' in f),
    'no safety_fallback field without vocabulary',
  );
});

t.test('update_vocabulary: acknowledged for the next turn, counted in the final audit; a bad one is answered and ignored', async (t) => {
  const { key } = await svc.createKey();
  const updated = await session(key, { vocabulary: ['metoprolol'], dictionary: false }, { type: 'update_vocabulary', vocabulary: ['amiodarone', 'apixaban'] });
  t.equal(updated.closed.code, 1000);
  const ack = updated.events.find((e) => e.type === 'vocabulary_updated');
  t.ok(ack, 'acknowledged');
  const firstFinal = updated.events.find((e) => e.type === 'turn_final')!;
  const turnNumber = Number(String(firstFinal.turn_id).slice(1));
  t.match(ack, { terms: 2, mode: 'direct' });
  t.ok(Number(String(ack!.applies_from_turn).slice(1)) > turnNumber, `applies from a turn after ${firstFinal.turn_id}: ${ack!.applies_from_turn}`);
  t.match(updated.events.at(-1)!.vocabulary, { requested_terms: 3 }, 'the audit covers every term the session was given');

  const rejected = await session(key, { vocabulary: ['metoprolol'] }, { type: 'update_vocabulary', vocabulary: ['x'.repeat(200)] });
  t.equal(rejected.closed.code, 1000, 'the session goes on');
  const refusal = rejected.events.find((e) => e.type === 'vocabulary_rejected');
  t.match(refusal, { message: /at most 96 characters/ });
  t.notOk(String(refusal?.message).includes('xxxx'), 'the message never echoes the terms');
  t.match(rejected.events.at(-1)!.vocabulary, { requested_terms: 1 });
});

t.test('refusals at start: terms and patterns by the upload rules (4400), patterns without the entitlement (4403)', async (t) => {
  const { key } = await svc.createKey();
  const refused = async (fields: Record<string, unknown>) => {
    const c = await connectRealtime(svc.service.realtime!.url);
    c.start(startMessage(key, fields));
    const closed = await c.closed;
    return { closed, error: c.events.find((e) => e.type === 'error') };
  };
  const cases: Array<[Record<string, unknown>, number, RegExp]> = [
    [{ vocabulary: 'metoprolol' }, 4400, /vocabulary must be a JSON array of strings/],
    [{ vocabulary: [''] }, 4400, /must not be empty/],
    [{ vocabulary: ['a\u202eb'] }, 4400, /bidirectional control/],
    [{ dictionary: 'no' }, 4400, /dictionary must be true or false/],
    [{ patterns: 'BP \\d+' }, 4400, /patterns must be a JSON array of strings/],
    [{ patterns: ['(unclosed'] }, 4400, /pattern 1/],
    [{ patterns: ['BP \\d+/\\d+'] }, 4403, /not entitled to patterns/],
  ];
  for (const [fields, code, message] of cases) {
    const { closed, error } = await refused(fields);
    t.equal(closed.code, code, JSON.stringify(fields));
    t.match(error?.message, message);
  }
});
