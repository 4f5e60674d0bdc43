// bench speech-detection: how much of the speech the VAD finds, and how much of what it finds is
// speech, on close and far-field talkers, with its cost.
// - recall and precision in time (test/helpers/speech-detection-score.ts; 0.25 s collar around every
//   reference boundary, as DER's; also without a collar), against
//   - the real recordings with RTTM references in ../shared/dev-speech (development data, never
//     committed): ami-dev00 is a far-field room microphone; four-voices' reference is contiguous
//     turns (its pauses count as speech), so its precision says little;
//   - generated speech with known silences (espeak-ng, two voices), close and as a far-field
//     microphone hears it (test/helpers/far-field.ts: a synthetic exponential-decay room response,
//     25-35 dB quieter, pink room noise), and a far talker right after a near one in one room;
// - seconds called speech in audio without any (noise, music, a tone, clicks and bursts over a room's
//   floor; quiet and loud): all false alarms;
// - the VAD's time in the addon (levelling and Silero's forward passes, median of --rounds calls) per
//   minute of audio.
// The engine's default VAD parameters, one VAD worker (no split), as the pipeline calls it;
// --max-gain-db 0 hears the audio unlevelled (as before issue 31's far-field work).
//   npm run bench -- speech-detection [--dir ../shared/dev-speech] [--rounds 5] [--vad-model PATH] [--max-gain-db N]
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { decodeAudio } from '../src/audio/index.js';
import { SAMPLE_RATE } from '../src/domain/audio-format.js';
import { Engine, type SpeechDetection } from '../src/engine/engine.js';
import { DEFAULT_VAD_PARAMS } from '../src/engine/vad-params.js';
import { vadModelPath } from '../src/models/vad-model-path.js';
import { farField, type FarFieldOptions } from '../test/helpers/far-field.js';
import { music } from '../test/helpers/music.js';
import { clicks, noiseBursts } from '../test/helpers/room-sounds.js';
import { parseRttm } from '../test/helpers/rttm.js';
import { type Span, speechDetectionScore } from '../test/helpers/speech-detection-score.js';
import { soxSignal, type SpeechLayout, speechWithSilences } from '../test/helpers/speech-with-silences.js';
import { testModelPath } from '../test/helpers/test-models.js';
import { flag, median, printResult, printTable, round } from './lib-report.js';

const here = dirname(fileURLToPath(import.meta.url));

/** Two talkers, ten sentences each, with pauses of 0.3 to 2 s (their order and pauses differ). */
const LAYOUTS: SpeechLayout[] = [
  { voice: 'en-us', sentences: [0, 1, 2, 3, 4, 2, 0, 4, 1, 3], silences: [1.0, 0.5, 1.5, 0.3, 2.0, 0.7, 1.2, 0.4, 0.9, 1.6, 1.0] },
  { voice: 'en-us+f3', sentences: [3, 0, 4, 1, 2, 1, 3, 0, 2, 4], silences: [0.6, 1.1, 0.4, 1.8, 0.8, 0.3, 1.4, 0.6, 2.0, 0.5, 1.2] },
];

/** Rooms: reverberation time, the talker's level and the noise under it (far-field.ts's defaults: DRR -3 dB). */
const ROOMS: Array<[string, FarFieldOptions | null]> = [
  ['close', null],
  ['far, T60 0.6 s, -45 dBFS, SNR 15 dB', { t60Seconds: 0.6, speechLevelDb: -45, snrDb: 15 }],
  ['far, T60 1.0 s, -45 dBFS, SNR 10 dB', { t60Seconds: 1.0, speechLevelDb: -45, snrDb: 10 }],
  ['far, T60 0.6 s, -55 dBFS, SNR 20 dB', { t60Seconds: 0.6, speechLevelDb: -55, snrDb: 20 }],
];

interface Case {
  name: string;
  pcm: Float32Array;
  /** null: no speech in it at all. */
  reference: Span[] | null;
  /** Counted in the generated far-field figure. */
  farField?: boolean;
  /** Seconds before which neither side is scored (another talker's speech, not in the reference). */
  scoredFrom?: number;
}

export async function run(args: string[]): Promise<void> {
  const dir = resolve(flag(args, 'dir', join(here, '..', '..', 'shared', 'dev-speech')));
  const rounds = Number(flag(args, 'rounds', '5'));
  const vadModel = resolve(flag(args, 'vad-model', vadModelPath()));
  const params = args.includes('--max-gain-db') ? { maxGainDb: Number(flag(args, 'max-gain-db', '')) } : {};
  const cases = [...(await realCases(dir)), ...(await generatedCases()), await nearThenFarCase(), ...(await nonSpeechCases())];
  const engine = await Engine.open({ model: await testModelPath('micro'), workers: 1, vadModel, vadWorkers: 1 });
  const rows: Array<Array<string | number>> = [];
  const figures: Record<string, number> = {};
  const farScores: Array<ReturnType<typeof speechDetectionScore>> = [];
  let falseAlarmSeconds = 0;
  let vadMs = 0;
  let audioSeconds = 0;
  try {
    for (const c of cases) {
      const detections: SpeechDetection[] = [];
      for (let r = 0; r < rounds; r++) detections.push(await engine.detectSpeech(c.pcm, params));
      const { segments } = detections[0];
      const ms = median(detections.map((d) => d.timings.totalMs));
      const seconds = c.pcm.length / SAMPLE_RATE;
      vadMs += ms;
      audioSeconds += seconds;
      const found = segments.reduce((sum, s) => sum + s.end - s.start, 0);
      const [levelling] = detections[0].levelling;
      const level = [round(levelling.levelDb, 1), round(levelling.gainDb, 1)];
      if (c.reference === null) {
        falseAlarmSeconds += found;
        rows.push([c.name, round(seconds, 1), ...level, '-', '-', '-', '-', round(found, 2), round(ms, 1)]);
        continue;
      }
      const judged = segments.filter((s) => s.end > (c.scoredFrom ?? 0)).map((s) => ({ start: Math.max(s.start, c.scoredFrom ?? 0), end: s.end }));
      const scored = speechDetectionScore(c.reference, judged);
      const bare = speechDetectionScore(c.reference, judged, 0);
      if (c.farField) farScores.push(scored);
      rows.push([
        c.name,
        round(seconds, 1),
        ...level,
        round(scored.recall),
        round(scored.precision),
        round(bare.recall),
        round(bare.precision),
        '-',
        round(ms, 1),
      ]);
      const key = c.name.replace(/\W+/g, '_').replace(/_+$/, '');
      if (c.scoredFrom !== undefined) figures.recall_generated_far_after_near = round(scored.recall);
      if (!c.name.startsWith('generated')) {
        figures[`recall_${key}`] = round(scored.recall);
        figures[`precision_${key}`] = round(scored.precision);
      }
    }
  } finally {
    await engine.close();
  }
  // The generated far-field rooms pooled: the share of all their speech found, and of all found that is speech.
  const pooled = (pick: 'hitSeconds' | 'referenceSeconds' | 'detectedSeconds') => farScores.reduce((sum, s) => sum + s[pick], 0);
  figures.recall_generated_far = round(pooled('hitSeconds') / pooled('referenceSeconds'));
  figures.precision_generated_far = round(pooled('hitSeconds') / pooled('detectedSeconds'));
  printTable(
    ['audio', 'seconds', 'level dBFS', 'gain dB', 'recall', 'precision', 'recall (no collar)', 'precision (no collar)', 'false alarm s', 'VAD ms'],
    rows,
  );
  console.log(`recall and precision in time, 0.25 s collar unless said; VAD ms: the call in the addon, median of ${rounds}, one thread`);
  printResult('speech-detection', {
    ...figures,
    false_alarm_seconds: round(falseAlarmSeconds, 2),
    vad_ms_per_audio_minute: round((vadMs / audioSeconds) * 60, 1),
    collar_s: 0.25,
    max_gain_db: params.maxGainDb ?? DEFAULT_VAD_PARAMS.maxGainDb,
  });
}

async function realCases(dir: string): Promise<Case[]> {
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.wav') && existsSync(join(dir, `${basename(f, '.wav')}.rttm`))) : [];
  if (files.length === 0) console.log(`no recordings with RTTM references in ${dir}`);
  return Promise.all(
    files.sort().map(async (file) => ({
      name: basename(file, '.wav'),
      pcm: await decodeAudio(join(dir, file), { maxSeconds: 3600, timeoutMs: 120_000 }),
      reference: parseRttm(readFileSync(join(dir, `${basename(file, '.wav')}.rttm`), 'utf8')),
    })),
  );
}

async function generatedCases(): Promise<Case[]> {
  const cases: Case[] = [];
  for (const [k, layout] of LAYOUTS.entries()) {
    const audio = await speechWithSilences(layout);
    for (const [room, options] of ROOMS) {
      const pcm = options ? farField(audio.pcm, audio.truth, { ...options, seed: k + 1 }) : audio.pcm;
      cases.push({ name: `generated ${layout.voice}, ${room}`, pcm, reference: audio.truth, farField: options !== null });
    }
  }
  return cases;
}

/**
 * One room, one noise floor (-60 dBFS): a talker near the microphone at -20 dBFS, then one across the
 * room at -45 (a clinician at the laptop, a patient across the desk). Scored on the far talker.
 */
async function nearThenFarCase(): Promise<Case> {
  const [nearLayout, farLayout] = LAYOUTS;
  const near = await speechWithSilences(nearLayout);
  const far = await speechWithSilences(farLayout);
  const nearPcm = farField(near.pcm, near.truth, { speechLevelDb: -20, snrDb: 40, directToReverberantDb: 10 });
  const farPcm = farField(far.pcm, far.truth, { speechLevelDb: -45, snrDb: 15, seed: 2 });
  const pcm = new Float32Array(nearPcm.length + farPcm.length);
  pcm.set(nearPcm);
  pcm.set(farPcm, nearPcm.length);
  return {
    name: 'generated near (-20 dBFS) then far (-45 dBFS) talker',
    pcm,
    reference: far.truth.map((s) => ({ start: s.start + near.seconds, end: s.end + near.seconds })),
    scoredFrom: near.seconds,
  };
}

async function nonSpeechCases(): Promise<Case[]> {
  const signals: Array<[string, Float32Array, number]> = [
    ['white noise', await soxSignal('whitenoise-vol0.1', 10, ['whitenoise'], ['vol', '0.1']), -30],
    ['white noise', await soxSignal('whitenoise-vol0.1', 10, ['whitenoise'], ['vol', '0.1']), -60],
    ['pink noise', await soxSignal('pinknoise-vol0.1', 10, ['pinknoise'], ['vol', '0.1']), -60],
    ['brown noise', await soxSignal('brownnoise-vol0.3', 10, ['brownnoise'], ['vol', '0.3']), -50],
    ['dial tone', await soxSignal('dial-vol0.3', 10, ['sine', '350', 'sine', '440'], ['vol', '0.3']), -50],
    ['music', music(10), -20],
    ['music', music(10), -55],
  ];
  const sounds: Array<[string, Float32Array]> = [
    ['clicks at -40 dBFS', clicks(10, -40)],
    ['breath-like bursts at -45 dBFS', noiseBursts(10, -45, 0.6, 2.5)],
    ['cough-like bursts at -35 dBFS', noiseBursts(10, -35, 0.25, 1.7)],
  ];
  return [
    ...signals.map(([name, pcm, db]) => ({ name: `${name} at ${db} dBFS`, pcm: atRmsDb(pcm, db), reference: null })),
    ...sounds.map(([name, pcm]) => ({ name, pcm, reference: null })),
  ];
}

function atRmsDb(pcm: Float32Array, db: number): Float32Array {
  const rms = Math.sqrt(pcm.reduce((sum, x) => sum + x * x, 0) / pcm.length);
  const gain = 10 ** (db / 20) / rms;
  return pcm.map((x) => x * gain);
}
