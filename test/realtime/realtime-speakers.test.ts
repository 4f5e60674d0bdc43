// Live speaker labels on a real session (engine, Silero VAD, the native diarizer, SQLite keys): a
// generated conversation streamed at real time with diarization on. The labels come as their own
// revisioned events, name every turn, tell the voices apart across turns, never carry or change text,
// and are complete before `final`. A diarizer that fails is said to have failed; the text goes on.
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { KeyStandingWatch } from '../../src/billing/key-standing-watch.js';
import { UsageBilling } from '../../src/billing/usage-billing.js';
import { Engine } from '../../src/engine/engine.js';
import { vadModelPath } from '../../src/models/vad-model-path.js';
import { startRealtimeListener } from '../../src/realtime/realtime-listener.js';
import { conversation, CONVERSATION_VOICES } from '../helpers/conversations.js';
import { diarizationErrorRate } from '../helpers/diarization-error-rate.js';
import { connectRealtime, type RealtimeEvent, startMessage, wavPcm } from '../helpers/realtime-client.js';
import { PREFERRED_TRANSPORT } from '../helpers/realtime-transports.js';
import { testModelPath } from '../helpers/test-models.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { referenceClip } from '../helpers/voice-references.js';

let svc: TestService;
let engine: Engine;

t.before(async () => {
  svc = await startTestService();
  // The listeners started here take seats through these stores: they count for a live instance only.
  await svc.stores.instances.register('test', 'all', Date.now(), 24 * 3_600_000);
  engine = await Engine.open({ model: await testModelPath('micro'), workers: 1, vadModel: vadModelPath(), vadWorkers: 1 });
});
t.teardown(async () => {
  await engine.close();
  await svc.close();
});

interface LabelledTurn {
  turn_id: string;
  speaker: string | null;
  segments: Array<{ speaker: string; start: number; end: number }>;
}

/** The labels after every revision, folded in order (a revision lists the turns it changes). */
function foldLabels(t: any, events: RealtimeEvent[]): Map<string, LabelledTurn> {
  const labels = new Map<string, LabelledTurn>();
  const revisions = events.filter((e) => e.type === 'speaker_labels');
  revisions.forEach((e, i) => {
    t.equal(e.revision_id, `speakers.${i + 1}`, 'speaker revisions are numbered on their own');
    t.equal(e.replaces_revision_id, i === 0 ? undefined : `speakers.${i}`);
    t.notOk('text' in e, 'a speaker revision carries no text');
    for (const turn of e.turns as LabelledTurn[]) labels.set(turn.turn_id, turn);
  });
  return labels;
}

/** The diarizer over the whole recording at once: the yardstick for labels made turn by turn. */
async function wholeRecordingDer(path: string, reference: Array<{ speaker: string; start: number; end: number }>): Promise<number> {
  const bytes = wavPcm(await readFile(path));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const pcm = Float32Array.from({ length: bytes.length / 2 }, (_, i) => view.getInt16(i * 2, true) / 32768);
  const diarization = await engine.diarize(pcm, (await engine.detectSpeech(pcm)).segments);
  return diarizationErrorRate(
    reference,
    diarization.turns.map((d) => ({ ...d, speaker: String(d.speaker) })),
  ).der;
}

t.test('a two-voice conversation at real time: labels per turn, revisioned, before final', async (t) => {
  const talk = await conversation({ voices: 2, turns: 6, seed: 3 });
  const pcm = wavPcm(await readFile(talk.path));
  const listener = await startRealtimeListener({
    host: '127.0.0.1',
    port: 0,
    transport: PREFERRED_TRANSPORT,
    keys: svc.stores.keys,
    clientSecrets: svc.stores.clientSecrets,
    billing: new UsageBilling(svc.stores.usage, svc.stores.billing, Date.now, null, svc.service.instanceId),
    watch: new KeyStandingWatch(svc.stores.keys),
    seats: svc.stores.seats,
    engines: { 'svc-medical-1': engine, 'svc-medical-edge-1': engine },
  });
  t.teardown(() => listener.close());
  const c = await connectRealtime(listener.url);
  c.start(startMessage(svc.key, { diarization: { enabled: true } }));
  const ready = await c.next('ready');
  t.same(ready.speakers, { status: 'provisional', event: 'speaker_labels' });
  await c.stream(pcm, { pace: 1 });
  c.stop();
  t.same(await c.closed, { code: 1000, reason: 'FINAL' });
  const turnFinals = c.events.filter((e) => e.type === 'turn_final');
  const final = c.events.at(-1)!;
  t.equal(final.type, 'final');
  const labels = foldLabels(t, c.events);
  const lastLabels = c.events.map((e) => e.type).lastIndexOf('speaker_labels');
  t.ok(lastLabels >= 0 && lastLabels < c.events.length - 1, 'the labels are complete before final');
  t.same([...labels.keys()].sort(), turnFinals.map((e) => e.turn_id as string).sort(), 'every turn is labelled');
  for (const e of turnFinals) {
    const turn = labels.get(e.turn_id as string)!;
    for (const s of turn.segments)
      t.ok(s.start >= (e.start as number) - 0.5 && s.end <= (e.end as number) + 0.5, `${e.turn_id}: its labels lie within the turn`);
  }
  const hypothesis = [...labels.values()].flatMap((turn) => turn.segments);
  const score = diarizationErrorRate(talk.turns, hypothesis);
  const yardstick = await wholeRecordingDer(talk.path, talk.turns);
  const revisions = c.events.filter((e) => e.type === 'speaker_labels').length;
  t.comment(`live DER ${score.der.toFixed(3)} over ${turnFinals.length} turns in ${revisions} revisions; whole recording ${yardstick.toFixed(3)}`);
  t.same(new Set(hypothesis.map((s) => s.speaker)), new Set(['A', 'B']), 'both voices are told apart, labelled A and B');
  t.ok(score.der <= Math.max(0.25, yardstick + 0.1), `live DER ${score.der.toFixed(3)} is near the whole recording's ${yardstick.toFixed(3)}`);
});

t.test('a diarizer that fails: the session says so once and the text goes on to final', async (t) => {
  const failing = Object.create(engine, {
    diarize: {
      value: async () => {
        throw new Error('diarizer down');
      },
    },
  }) as Engine;
  const listener = await startRealtimeListener({
    host: '127.0.0.1',
    port: 0,
    transport: 'ws',
    keys: svc.stores.keys,
    clientSecrets: svc.stores.clientSecrets,
    billing: new UsageBilling(svc.stores.usage, svc.stores.billing, Date.now, null, svc.service.instanceId),
    watch: new KeyStandingWatch(svc.stores.keys),
    seats: svc.stores.seats,
    engines: { 'svc-medical-1': failing, 'svc-medical-edge-1': failing },
  });
  t.teardown(() => listener.close());
  const talk = await conversation({ voices: 2, turns: 6, seed: 3 });
  const c = await connectRealtime(listener.url);
  c.start(startMessage(svc.key, { diarization: { enabled: true } }));
  await c.next('ready');
  await c.stream(wavPcm(await readFile(talk.path)), { pace: 2 });
  c.stop();
  t.same(await c.closed, { code: 1000, reason: 'FINAL' });
  const status = c.events.filter((e) => e.type === 'speaker_status');
  t.match(status, [{ status: 'unavailable', reason: String }], 'said once');
  t.notOk(JSON.stringify(status).includes('diarizer down'), 'the engine error is not passed on');
  t.equal(c.events.filter((e) => e.type === 'speaker_labels').length, 0);
  t.ok(c.events.filter((e) => e.type === 'turn_final').length >= 1, 'turns go on');
  t.equal(c.events.at(-1)?.type, 'final');
});

t.test("known speakers live: an enrolled voice of the tenant names its turns; an unknown id or another tenant's refuses the start", async (t) => {
  const clinic = await svc.createKey({ tenant: 'rt-known-speakers' });
  const other = await svc.createKey({ tenant: 'rt-other-tenant' });
  const talk = await conversation({ voices: 2, turns: 6, seed: 3 });
  const clip = wavPcm(await readFile(await referenceClip(CONVERSATION_VOICES.A)));
  const view = new DataView(clip.buffer, clip.byteOffset, clip.byteLength);
  const samples = Float32Array.from({ length: clip.length / 2 }, (_, i) => view.getInt16(i * 2, true) / 32768);
  const profile = (await engine.diarize(samples, (await engine.detectSpeech(samples)).segments)).profiles[0];
  const voice = await svc.stores.voices.create(clinic.tenant, 'Dr Ames', profile, Date.now());
  const outcomes: Array<Record<string, unknown>> = [];
  const listener = await startRealtimeListener({
    host: '127.0.0.1',
    port: 0,
    transport: PREFERRED_TRANSPORT,
    keys: svc.stores.keys,
    clientSecrets: svc.stores.clientSecrets,
    billing: new UsageBilling(svc.stores.usage, svc.stores.billing, Date.now, null, svc.service.instanceId),
    watch: new KeyStandingWatch(svc.stores.keys),
    seats: svc.stores.seats,
    engines: { 'svc-medical-1': engine, 'svc-medical-edge-1': engine },
    voices: svc.stores.voices,
    onSessionEnd: (outcome) => outcomes.push({ ...outcome }),
  });
  t.teardown(() => listener.close());

  for (const [label, key, ids] of [
    ['unknown id', clinic.key, [`voice_${'x'.repeat(24)}`]],
    ["another tenant's voice", other.key, [voice.id]],
  ] as const) {
    const refused = await connectRealtime(listener.url);
    refused.start(startMessage(key, { diarization: { enabled: true, known_speakers: ids } }));
    const closed = await refused.closed;
    t.same(closed, { code: 4400, reason: 'INVALID_START' }, label);
    t.match(refused.events.find((e) => e.type === 'error')?.message, /known_speakers\[0\] is not a voice enrolled for this key's tenant/, label);
  }

  const c = await connectRealtime(listener.url);
  c.start(startMessage(clinic.key, { diarization: { enabled: true, known_speakers: [voice.id] } }));
  await c.next('ready');
  await c.stream(wavPcm(await readFile(talk.path)), { pace: 1 });
  c.stop();
  t.same(await c.closed, { code: 1000, reason: 'FINAL' });
  const labels = foldLabels(t, c.events);
  const named = [...labels.values()].flatMap((turn) => turn.segments).filter((s) => s.speaker === 'Dr Ames');
  const doctorSeconds = talk.turns.filter((x) => x.speaker === 'A').reduce((sum, x) => sum + x.end - x.start, 0);
  const namedSeconds = named.reduce((sum, s) => sum + s.end - s.start, 0);
  t.ok(namedSeconds > 0.8 * doctorSeconds, `the doctor's turns carry the name (${namedSeconds.toFixed(1)} of ${doctorSeconds.toFixed(1)} s)`);
  const lastRevision = c.events.filter((e) => e.type === 'speaker_labels').at(-1)!;
  t.match(lastRevision.known_speakers, [{ name: 'Dr Ames', matched: true }]);
  t.same(outcomes.at(-1)?.voiceIds, [voice.id], 'the session-ended audit line names the voice by id');
});
