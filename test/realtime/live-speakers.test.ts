// Live speaker labels turn by turn, on the real native diarizer, fed a generated conversation's
// reference turns one at a time (no transport, no timing): the revisions, the labels' quality against
// the whole recording diarized at once, the bound on what a session keeps, and a failing diarizer.
// The labelling rules (speaker-labelling.ts) are checked on hand-made diarizations.
import { readFile } from 'node:fs/promises';

import t from 'tap';

import type { EngineWork } from '../../src/domain/work-classes.js';
import { Engine } from '../../src/engine/engine.js';
import type { SpeakerDiarizer } from '../../src/engine/speaker-diarizer.js';
import { vadModelPath } from '../../src/models/vad-model-path.js';
import { LiveSpeakers, type LiveSpeakersEvents } from '../../src/realtime/live-speakers.js';
import { nameVoices, type TurnSpeakers, turnSpeakers, voicePieces } from '../../src/realtime/speaker-labelling.js';
import type { SpeakerVoice } from '../helpers/audio-fixtures.js';
import { conversation, CONVERSATION_VOICES } from '../helpers/conversations.js';
import { diarizationErrorRate } from '../helpers/diarization-error-rate.js';
import { wavPcm } from '../helpers/realtime-client.js';
import { testModelPath } from '../helpers/test-models.js';
import { referenceClip } from '../helpers/voice-references.js';

const LABEL_WORK: EngineWork = { workClass: 'realtime_partial', tenant: 'tenant-a', request: 'session-a' };

let engine: Engine;
t.before(async () => {
  engine = await Engine.open({ model: await testModelPath('micro'), workers: 1, vadModel: vadModelPath(), vadWorkers: 1 });
});
t.teardown(() => engine.close());

async function recording(voices: 2 | 3, turns: number, seed: number) {
  const talk = await conversation({ voices, turns, seed });
  const bytes = wavPcm(await readFile(talk.path));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const pcm = Float32Array.from({ length: bytes.length / 2 }, (_, i) => view.getInt16(i * 2, true) / 32768);
  return { talk, pcm };
}

type Revision = Parameters<LiveSpeakersEvents['labels']>[0];

function recorder() {
  const revisions: Revision[] = [];
  const unavailable: string[] = [];
  return { revisions, unavailable, events: { labels: (r: Revision) => revisions.push(r), unavailable: (reason: string) => unavailable.push(reason) } };
}

/** Feeds the conversation's turns in order, each with its own audio, waiting for each to be labelled. */
async function feed(live: LiveSpeakers, pcm: Float32Array, turns: Array<{ start: number; end: number }>, afterEach?: (i: number) => void) {
  for (const [i, turn] of turns.entries()) {
    const from = Math.round(turn.start * 16_000);
    const to = Math.round(turn.end * 16_000);
    live.addTurn(`t${i + 1}`, turn.start, pcm.slice(from, to), [{ start: 0, end: (to - from) / 16_000 }]);
    await live.settled();
    afterEach?.(i);
  }
}

t.test('a three-voice conversation turn by turn: revisions of changed turns, as good as the whole recording', async (t) => {
  const { talk, pcm } = await recording(3, 12, 1);
  // Overlapping reference turns are fed as one turn each, as a realtime session would see them end.
  const { revisions, unavailable, events } = recorder();
  const live = new LiveSpeakers(engine, events, LABEL_WORK);
  const revisionsAfter: number[] = [];
  await feed(live, pcm, talk.turns, () => revisionsAfter.push(revisions.length));
  t.same(unavailable, []);
  t.ok(revisionsAfter.every((n, i) => i === 0 || n >= revisionsAfter[i - 1]));
  revisions.forEach((r, i) => {
    t.equal(r.revision_id, `speakers.${i + 1}`);
    t.equal(r.replaces_revision_id, i === 0 ? undefined : `speakers.${i}`);
  });
  const folded = new Map<string, Revision['turns'][number]>();
  for (const r of revisions) {
    for (const turn of r.turns) {
      t.notSame(folded.get(turn.turn_id), turn, `${r.revision_id} lists ${turn.turn_id} only because its labels changed`);
      folded.set(turn.turn_id, turn);
    }
  }
  t.equal(folded.size, talk.turns.length, 'every turn is labelled');
  const live3 = diarizationErrorRate(
    talk.turns,
    [...folded.values()].flatMap((turn) => turn.segments),
  ).der;
  const whole = await engine.diarize(pcm, (await engine.detectSpeech(pcm)).segments);
  const yardstick = diarizationErrorRate(
    talk.turns,
    whole.turns.map((d) => ({ ...d, speaker: String(d.speaker) })),
  ).der;
  t.comment(`live DER ${live3.toFixed(3)} in ${revisions.length} revisions; whole recording ${yardstick.toFixed(3)}`);
  t.ok(live3 <= yardstick + 0.1, `turn by turn (${live3.toFixed(3)}) is near the whole recording (${yardstick.toFixed(3)})`);
});

t.test('only the last seconds of turns are kept: older turns keep their last labels', async (t) => {
  const { talk, pcm } = await recording(2, 8, 1);
  const keepSeconds = 8;
  const { revisions, events } = recorder();
  const live = new LiveSpeakers(engine, events, LABEL_WORK, keepSeconds);
  const seconds = talk.turns.map((turn) => Math.floor((turn.end - turn.start) * 100) / 100);
  const mentionedAfter: Array<Set<string>> = [];
  let seen = 0;
  await feed(live, pcm, talk.turns, (i) => {
    mentionedAfter[i] = new Set(revisions.slice(seen).flatMap((r) => r.turns.map((turn) => turn.turn_id)));
    seen = revisions.length;
  });
  let checked = 0;
  for (const [i, mentioned] of mentionedAfter.entries()) {
    for (const id of mentioned) {
      const j = Number(id.slice(1)) - 1;
      const keptSeconds = seconds.slice(j, i + 1).reduce((a, b) => a + b, 0);
      t.ok(j === i || keptSeconds <= keepSeconds + 0.05, `after turn ${i + 1}, ${id} is relabelled only while its features are kept`);
      checked++;
    }
  }
  t.ok(checked > 0);
  t.ok(
    talk.turns.some((_, i) => i > 0 && seconds.slice(0, i + 1).reduce((a, b) => a + b, 0) > keepSeconds),
    'the conversation outgrows what is kept',
  );
});

t.test('a failing diarizer: said once, nothing more is tried, settled still resolves', async (t) => {
  const { talk, pcm } = await recording(2, 6, 3);
  let diarizeCalls = 0;
  const failing: SpeakerDiarizer = {
    speakerFeatures: (p, r) => engine.speakerFeatures(p, r),
    diarize: async () => {
      diarizeCalls++;
      throw new Error('diarizer down');
    },
  };
  const { revisions, unavailable, events } = recorder();
  await feed(new LiveSpeakers(failing, events, LABEL_WORK), pcm, talk.turns);
  t.equal(revisions.length, 0);
  t.equal(unavailable.length, 1, 'said once');
  t.notMatch(unavailable[0], /diarizer down/, 'the engine error is not passed on');
  t.equal(diarizeCalls, 1, 'no further attempts');
});

t.test('labelling rules', async (t) => {
  const previous = new Map<string, TurnSpeakers>([
    ['t1', { turnId: 't1', speaker: 'A', segments: [{ speaker: 'A', start: 0, end: 4 }] }],
    ['t2', { turnId: 't2', speaker: 'B', segments: [{ speaker: 'B', start: 5, end: 9 }] }],
  ]);
  // The diarizer renumbered: voice 0 is now the one labelled B, voice 1 the one labelled A, voice 2 new.
  const pieces = [
    { turnId: 't1', voice: 1, start: 0, end: 4 },
    { turnId: 't2', voice: 0, start: 5, end: 9 },
    { turnId: 't3', voice: 2, start: 10, end: 12 },
    { turnId: 't3', voice: 2, start: 12, end: 13 },
    { turnId: 't3', voice: 1, start: 13, end: 13.5 },
  ];
  const names = nameVoices(pieces, previous, new Set());
  t.same(Object.fromEntries(names), { 0: 'B', 1: 'A', 2: 'C' }, 'voices keep their labels through renumbering; a new one takes a free letter');
  t.same(Object.fromEntries(nameVoices(pieces, previous, new Set(['C']))), { 0: 'B', 1: 'A', 2: 'D' }, 'a label of a turn no longer re-diarized is not reused');
  t.same(Object.fromEntries(nameVoices(pieces, new Map(), new Set())), { 1: 'A', 0: 'B', 2: 'C' }, 'first labels in order of appearance');
  t.same(
    turnSpeakers(['t3'], pieces, names),
    [
      {
        turnId: 't3',
        speaker: 'C',
        segments: [
          { speaker: 'C', start: 10, end: 13 },
          { speaker: 'A', start: 13, end: 13.5 },
        ],
      },
    ],
    'adjacent pieces of one voice are joined; the turn is named by the voice with the most speech',
  );
  t.same(turnSpeakers(['t9'], pieces, names), [{ turnId: 't9', speaker: null, segments: [] }]);
  // Turns laid end to end: t1 is 3 s of joined time from session 10 s, t2 2 s from session 20 s.
  const layout = [
    { turnId: 't1', offset: 0, seconds: 3, sessionStart: 10 },
    { turnId: 't2', offset: 3, seconds: 2, sessionStart: 20 },
  ];
  t.same(
    voicePieces([{ speaker: 0, start: 1, end: 4 }], layout),
    [
      { turnId: 't1', voice: 0, start: 11, end: 13 },
      { turnId: 't2', voice: 0, start: 20, end: 21 },
    ],
    'a diarized turn across two session turns is split, each in session time',
  );
});

t.test('known speakers live: the enrolled voice is named while it matches, the other keeps its letter, a stranger names nobody', async (t) => {
  const { talk, pcm } = await recording(2, 8, 1);
  const profileOf = async (voice: SpeakerVoice) => {
    const bytes = wavPcm(await readFile(await referenceClip(voice)));
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const samples = Float32Array.from({ length: bytes.length / 2 }, (_, i) => view.getInt16(i * 2, true) / 32768);
    return (await engine.diarize(samples, (await engine.detectSpeech(samples)).segments)).profiles[0];
  };
  const known = [
    { name: 'Dr Ames', profile: await profileOf(CONVERSATION_VOICES.A) },
    { name: 'Stranger', profile: await profileOf({ voice: 'en-us+f1', pitch: 70 }) },
  ];
  const { revisions, unavailable, events } = recorder();
  await feed(new LiveSpeakers(engine, events, LABEL_WORK, undefined, known), pcm, talk.turns);
  t.same(unavailable, []);
  const folded = new Map<string, Revision['turns'][number]>();
  for (const r of revisions) for (const turn of r.turns) folded.set(turn.turn_id, turn);
  talk.turns.forEach((turn, i) => {
    const label = folded.get(`t${i + 1}`)?.speaker;
    if (turn.speaker === 'A') t.equal(label, 'Dr Ames', `t${i + 1}, the doctor's turn, carries the name`);
    else t.not(label, 'Dr Ames', `t${i + 1} is not named as the doctor`);
  });
  t.ok(
    [...folded.values()].every((turn) => turn.speaker !== 'Stranger'),
    'the stranger names nobody',
  );
  const last = revisions[revisions.length - 1].known_speakers!;
  t.match(last, [
    { name: 'Dr Ames', matched: true },
    { name: 'Stranger', matched: false },
  ]);
});
