// bench diarization-real: the native diarizer on the real recordings with reference RTTM turns in
// ../shared/dev-speech/ (data, never committed; see its README): each WAV with an RTTM of the same
// base name, on the Silero VAD's regions, no hints. DER (0.25 s collar) with its parts, voices found.
// Development data only: other real recordings are kept aside, so do not tune constants to these.
//   npm run bench -- diarization-real [--dir ../shared/dev-speech]
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { decodeAudio } from '../src/audio/index.js';
import { Engine } from '../src/engine/engine.js';
import { vadModelPath } from '../src/models/vad-model-path.js';
import { diarizationErrorRate, type SpeakerTurn } from '../test/helpers/diarization-error-rate.js';
import { testModelPath } from '../test/helpers/test-models.js';
import { flag, printResult, printTable, round } from './lib-report.js';

const here = dirname(fileURLToPath(import.meta.url));

function rttm(path: string): SpeakerTurn[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('SPEAKER '))
    .map((line) => {
      const f = line.trim().split(/\s+/);
      return { speaker: f[7], start: Number(f[3]), end: Number(f[3]) + Number(f[4]) };
    });
}

export const DEV_RECORDINGS_DIR = join(here, '..', '..', 'shared', 'dev-speech');
export const DEV_RECORDING_HEADERS = ['file', 'seconds', 'voices', 'found', 'DER', 'missed', 'false alarm', 'confusion'];

/**
 * The real recordings measured (`bench diarization` reports them too): a table's rows, and per file
 * (its name in snake case) the DER and the voices found.
 */
export async function measureDevRecordings(
  dir: string,
): Promise<{ rows: Array<Array<string | number>>; der: Record<string, number>; voices: Record<string, number> }> {
  const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.wav') && existsSync(join(dir, `${basename(f, '.wav')}.rttm`))) : [];
  if (files.length === 0) console.log(`no recordings with RTTM references in ${dir}`);
  const engine = await Engine.open({ model: await testModelPath('micro'), workers: 1, vadModel: vadModelPath(), vadWorkers: 1 });
  const rows: Array<Array<string | number>> = [];
  const der: Record<string, number> = {};
  const voices: Record<string, number> = {};
  try {
    for (const file of files.sort()) {
      const name = basename(file, '.wav');
      const reference = rttm(join(dir, `${name}.rttm`));
      const pcm = await decodeAudio(join(dir, file), { maxSeconds: 3600, timeoutMs: 120_000 });
      const regions = (await engine.detectSpeech(pcm)).segments;
      const result = await engine.diarize(pcm, regions);
      const score = diarizationErrorRate(
        reference,
        result.turns.map((x) => ({ speaker: String(x.speaker), start: x.start, end: x.end })),
      );
      const part = (x: number) => round(score.scored > 0 ? x / score.scored : 0);
      rows.push([
        name,
        round(pcm.length / 16000, 1),
        new Set(reference.map((x) => x.speaker)).size,
        result.voices,
        round(score.der),
        part(score.missed),
        part(score.falseAlarm),
        part(score.confusion),
      ]);
      der[name.replace(/\W/g, '_')] = round(score.der);
      voices[name.replace(/\W/g, '_')] = result.voices;
    }
  } finally {
    await engine.close();
  }
  return { rows, der, voices };
}

export async function run(args: string[]): Promise<void> {
  const { rows, der, voices } = await measureDevRecordings(resolve(flag(args, 'dir', DEV_RECORDINGS_DIR)));
  printTable(DEV_RECORDING_HEADERS, rows);
  const figures: Record<string, number> = {};
  for (const name of Object.keys(der)) {
    figures[`der_${name}`] = der[name];
    figures[`voices_${name}`] = voices[name];
  }
  printResult('diarization-real', { ...figures, files: rows.length });
}
