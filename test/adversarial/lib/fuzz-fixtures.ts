// The bytes behind each FileChoice of the fuzz cases, loaded once per run. The speech file is short
// so that the cases that do reach the engine stay cheap, and its exact length is the one the fuzz
// jobs declare, so their presigned forms can be fulfilled.
import { readFile } from 'node:fs/promises';

import { pngImage, speechWav } from '../../helpers/audio-fixtures.js';
import type { FileChoice } from './case-spec.js';

export const SPEECH_SECONDS = 1.5;
/** A 16 kHz mono 16-bit WAV: 44 header bytes and 2 bytes per sample. */
export const SPEECH_BYTES = 44 + SPEECH_SECONDS * 16_000 * 2;

export type FuzzFiles = Readonly<Record<FileChoice, Buffer>>;

export async function loadFuzzFiles(): Promise<FuzzFiles> {
  const speech = await readFile(await speechWav(SPEECH_SECONDS));
  if (speech.length !== SPEECH_BYTES) throw new Error(`speech fixture is ${speech.length} bytes, expected ${SPEECH_BYTES}`);
  const random = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 2654435761) >>> 24));
  return {
    speech,
    'short-speech': await readFile(await speechWav(0.5)),
    empty: Buffer.alloc(0),
    random,
    png: await readFile(await pngImage()),
    'wav-header-only': speech.subarray(0, 44),
    // An ID3 tag followed by bytes that are not MPEG frames.
    'mp3-garbage': Buffer.concat([Buffer.from('ID3\u0004\u0000\u0000\u0000\u0000\u0000\u0010', 'latin1'), Buffer.alloc(16), random]),
    'job-exact': speech,
    'job-plus-one': Buffer.concat([speech, Buffer.from([0])]),
    'job-minus-one': speech.subarray(0, speech.length - 1),
  };
}
