// Known speakers named from reference clips (src/pipeline/voice-matching.ts) on generated voices, with
// the real VAD and the native diarizer's profiles: an enrolled voice is named, a voice nobody enrolled
// keeps its letter even when a stranger's clip is offered, each name goes to one voice at most, and
// the profiles themselves are what the matching assumes (one per voice, symmetric covariances).
import { readFile } from 'node:fs/promises';

import t, { type Test } from 'tap';

import { Engine } from '../../src/engine/engine.js';
import type { VoiceProfile } from '../../src/engine/speaker-diarizer.js';
import { vadModelPath } from '../../src/models/vad-model-path.js';
import { MATCH_DISTANCE, matchKnownSpeakers, similarityOf, voiceDistance } from '../../src/pipeline/voice-matching.js';
import type { SpeakerVoice } from '../helpers/audio-fixtures.js';
import { conversation, CONVERSATION_VOICES } from '../helpers/conversations.js';
import { testModelPath } from '../helpers/test-models.js';
import { referenceClip, throughChannel } from '../helpers/voice-references.js';

let engine: Engine;
t.before(async () => {
  engine = await Engine.open({ model: await testModelPath('micro'), workers: 1, vadModel: vadModelPath(), vadWorkers: 1 });
});
t.teardown(() => engine.close());

async function pcmOf(path: string): Promise<Float32Array> {
  const bytes = await readFile(path);
  return Float32Array.from(new Int16Array(bytes.buffer, bytes.byteOffset + 44, (bytes.length - 44) / 2), (s) => s / 32768);
}

async function diarized(path: string) {
  const pcm = await pcmOf(path);
  return engine.diarize(pcm, (await engine.detectSpeech(pcm)).segments);
}

async function referenceOf(t: Test, voice: SpeakerVoice): Promise<VoiceProfile> {
  const clip = await diarized(await referenceClip(voice));
  t.equal(clip.voices, 1, 'a reference clip is one voice');
  return clip.profiles[0];
}

/** The voice (by the diarizer's numbering) that speaks most of `speaker`'s reference turns. */
function voiceOf(turns: Array<{ speaker: string; start: number; end: number }>, hyp: Array<{ speaker: number; start: number; end: number }>, speaker: string) {
  const overlap = new Map<number, number>();
  for (const r of turns.filter((x) => x.speaker === speaker)) {
    for (const h of hyp) overlap.set(h.speaker, (overlap.get(h.speaker) ?? 0) + Math.max(0, Math.min(r.end, h.end) - Math.max(r.start, h.start)));
  }
  return [...overlap.entries()].sort((a, b) => b[1] - a[1])[0][0];
}

t.test('profiles: one per voice, from loud frames, with symmetric covariances', async (t) => {
  const c = await conversation({ voices: 2, turns: 8, seed: 1 });
  const d = await diarized(c.path);
  t.equal(d.profiles.length, d.voices);
  for (const p of d.profiles) {
    t.ok(p.frames > 100, `${p.frames} loud frames`);
    t.equal(p.mean.length, 19);
    t.equal(p.covariance.length, 19 * 19);
    t.ok([...p.covariance].every((v, k) => Math.abs(v - p.covariance[(k % 19) * 19 + Math.floor(k / 19)]) < 1e-9 * (1 + Math.abs(v))));
    // The voiced loud frames' log-F0: most loud frames of espeak's vowels are voiced, and F0 lies in the tracker's 60-400 Hz.
    t.ok(p.pitch && p.pitch.frames > p.frames / 2 && p.pitch.frames <= p.frames, `${p.pitch?.frames} voiced of ${p.frames}`);
    t.ok(p.pitch!.mean > Math.log(60) && p.pitch!.mean < Math.log(400) && p.pitch!.variance > 0, `mean F0 ${Math.exp(p.pitch!.mean).toFixed(0)} Hz`);
  }
  t.equal(voiceDistance(d.profiles[0], d.profiles[0]), 0, 'a profile is at distance 0 from itself');
  t.equal(similarityOf(0), 1);
  t.equal(similarityOf(MATCH_DISTANCE), 0.5, 'the threshold sits at similarity 0.5');
  const silent = await engine.diarize(new Float32Array(16000 * 3), []);
  t.same(silent.profiles, [], 'silence has no voices and no profiles');
});

t.test('the enrolled voices are named, and no other', async (t) => {
  const c = await conversation({ voices: 3, turns: 16, seed: 1 });
  const d = await diarized(c.path);
  const known = [
    { name: 'Dr Ames', profile: await referenceOf(t, CONVERSATION_VOICES.A) },
    { name: 'Nurse Bell', profile: await referenceOf(t, CONVERSATION_VOICES.B) },
  ];
  const matches = matchKnownSpeakers(d.profiles, known);
  t.equal(matches.length, 2);
  t.equal(matches[0].voice, voiceOf(c.turns, d.turns, 'A'), 'the doctor is the voice that spoke as A');
  t.equal(matches[1].voice, voiceOf(c.turns, d.turns, 'B'));
  for (const m of matches) t.ok(m.similarity! > 0.5 && m.similarity! <= 1, `${m.name}: similarity ${m.similarity}`);
  const third = voiceOf(c.turns, d.turns, 'C');
  t.notOk(
    matches.some((m) => m.voice === third),
    'the third voice, enrolled by nobody, is not named',
  );
});

t.test('a stranger enrolled in place of a voice does not take it; one name per voice', async (t) => {
  const c = await conversation({ voices: 2, turns: 8, seed: 1 });
  const d = await diarized(c.path);
  const doctor = await referenceOf(t, CONVERSATION_VOICES.A);
  // A stranger of the patient's sex and pitch range, of another variant (the patient is not enrolled).
  const stranger = await referenceOf(t, { voice: 'en-us+f1', pitch: 70 });
  const matches = matchKnownSpeakers(d.profiles, [
    { name: 'doctor', profile: doctor },
    { name: 'stranger', profile: stranger },
  ]);
  t.equal(matches[0].voice, voiceOf(c.turns, d.turns, 'A'));
  t.equal(matches[1].voice, null, 'the stranger is nobody here');
  t.ok(matches[1].similarity !== null && matches[1].similarity < 0.5, `nearest similarity ${matches[1].similarity}`);
  const twice = matchKnownSpeakers(d.profiles, [
    { name: 'first', profile: doctor },
    { name: 'second', profile: doctor },
  ]);
  t.same(
    twice.map((m) => m.voice),
    [voiceOf(c.turns, d.turns, 'A'), null],
    'the same voice is not named twice: the second name is left unmatched',
  );
});

t.test("a voice's own variant at another pitch is a stranger: pitch keeps apart what the cepstra do not", async (t) => {
  const c = await conversation({ voices: 2, turns: 8, seed: 1 });
  const d = await diarized(c.path);
  const doctor = voiceOf(c.turns, d.turns, 'A');
  // en-us+m3 spoken 15 pitch steps higher than the doctor (pitch 35): one vocal tract, another register.
  const twin = await referenceOf(t, { ...CONVERSATION_VOICES.A, pitch: 50 });
  const envelopeOnly: VoiceProfile = { frames: twin.frames, mean: twin.mean, covariance: twin.covariance };
  t.ok(voiceDistance(d.profiles[doctor], envelopeOnly) < MATCH_DISTANCE, 'on the cepstra alone the twin is within the threshold');
  t.ok(voiceDistance(d.profiles[doctor], twin) > MATCH_DISTANCE, 'with pitch it is not');
  t.same(
    matchKnownSpeakers(d.profiles, [{ name: 'twin', profile: twin }]).map((m) => m.voice),
    [null],
    'so the twin names nobody',
  );
  t.same(
    matchKnownSpeakers(d.profiles, [{ name: 'legacy', profile: envelopeOnly }]).map((m) => m.voice),
    [doctor],
    'a profile without pitch (enrolled before pitch was kept) is compared on its cepstra alone',
  );
});

t.test('a clip recorded on a brighter microphone still names its voice, and a stranger through it names nobody', async (t) => {
  const c = await conversation({ voices: 2, turns: 8, seed: 1 });
  const d = await diarized(c.path);
  // y = x - 0.6 x[-1]: about 8 dB more at 4 kHz than at 300 Hz, a tilt c1 and c2 take (voice-matching.ts).
  const brighter = async (voice: SpeakerVoice) => {
    const pcm = throughChannel(await pcmOf(await referenceClip(voice)), 'tilt');
    const clip = await engine.diarize(pcm, (await engine.detectSpeech(pcm)).segments);
    t.equal(clip.voices, 1);
    return clip.profiles[0];
  };
  const matches = matchKnownSpeakers(d.profiles, [
    { name: 'doctor', profile: await brighter(CONVERSATION_VOICES.A) },
    { name: 'stranger', profile: await brighter({ voice: 'en-us+f1', pitch: 70 }) },
  ]);
  t.equal(matches[0].voice, voiceOf(c.turns, d.turns, 'A'), `the doctor is named through another microphone (similarity ${matches[0].similarity})`);
  t.equal(matches[1].voice, null, 'the stranger is nobody here');
});

t.test('a voice with too little speech is never named', async (t) => {
  const thin: VoiceProfile = { frames: 10, mean: new Float64Array(19), covariance: new Float64Array(19 * 19) };
  const matches = matchKnownSpeakers([thin], [{ name: 'x', profile: thin }]);
  t.same(matches, [{ name: 'x', voice: null, similarity: null }]);
});
