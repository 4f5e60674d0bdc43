// Runs whisper.cpp's own whisper-cli (built beside our addon from the same source and flags) and
// reads its full JSON output: the oracle for the differential tests and the yardstick of `bench engine`.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const WHISPER_CLI = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'build', 'bin', 'whisper-cli');

export interface CliToken {
  text: Buffer;
  id: number;
  p: number;
  offsets?: { from: number; to: number };
}

export interface CliSegment {
  offsets: { from: number; to: number };
  text: Buffer;
  tokens: CliToken[];
}

export interface CliResult {
  segments: CliSegment[];
  stderr: string;
  /** "auto-detected language: xx (p = 0.123456)" when run with -l auto. */
  detected?: { language: string; p: number };
  /**
   * whisper_print_timings' run counts (runs with `timings`): encoder runs, and single-token decoder
   * runs (whisper prints at least 1 for each count).
   */
  runs?: { encode: number; decode: number };
}

/**
 * whisper-cli writes token bytes into JSON strings unescaped, so a random model's control bytes and
 * partial UTF-8 make it invalid JSON. Read it as latin1 (one char per byte), escape control bytes
 * inside strings, parse, and turn strings back into the bytes they were.
 */
export function parseCliJson(raw: Buffer): unknown {
  const latin1 = raw.toString('latin1');
  let out = '';
  let inString = false;
  for (let i = 0; i < latin1.length; i++) {
    const ch = latin1[i];
    const code = latin1.charCodeAt(i);
    if (inString) {
      if (ch === '\\') {
        out += ch + latin1[++i];
        continue;
      }
      if (ch === '"') inString = false;
      out += code < 0x20 ? `\\u${code.toString(16).padStart(4, '0')}` : ch;
    } else {
      if (ch === '"') inString = true;
      out += ch;
    }
  }
  return JSON.parse(out);
}

const bytesOf = (latin1: string) => Buffer.from(latin1, 'latin1');

export async function runWhisperCli(options: {
  model: string;
  wav: string;
  threads: number;
  language: string;
  extraArgs?: string[];
  /** Leave whisper's timings on (no -np) and read their run counts. */
  timings?: boolean;
}): Promise<CliResult> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-cli-'));
  try {
    const outBase = join(dir, 'out');
    const { stderr } = await run(
      WHISPER_CLI,
      [
        '-m',
        options.model,
        '-f',
        options.wav,
        '-t',
        String(options.threads),
        '-l',
        options.language,
        // -np would also silence the "auto-detected language" line the detection test reads.
        '-bs',
        '1',
        '-nf',
        ...(options.language === 'auto' || options.timings ? [] : ['-np']),
        '-ojf',
        '-of',
        outBase,
        ...(options.extraArgs ?? []),
      ],
      { maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
    );
    const json = parseCliJson(await readFile(`${outBase}.json`)) as {
      transcription: Array<{
        offsets: { from: number; to: number };
        text: string;
        tokens: Array<{ text: string; id: number; p: number; offsets?: { from: number; to: number } }>;
      }>;
    };
    const segments = json.transcription.map((s) => ({
      offsets: s.offsets,
      text: bytesOf(s.text),
      tokens: s.tokens.map((t) => ({ text: bytesOf(t.text), id: t.id, p: t.p, offsets: t.offsets })),
    }));
    const m = /auto-detected language: (\w+) \(p = ([0-9.]+)\)/.exec(stderr);
    const runsOf = (phase: string) => Number(new RegExp(`${phase} time = +[0-9.]+ ms / +(\\d+) runs`).exec(stderr)?.[1] ?? NaN);
    const runs = options.timings ? { encode: runsOf('encode'), decode: runsOf('decode') } : undefined;
    return { segments, stderr, detected: m ? { language: m[1], p: Number(m[2]) } : undefined, runs };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * whisper-cli's full JSON merges adjacent tokens until their bytes end on a complete UTF-8 character
 * (keeping the first token's id, p and t0, the last timed token's t1). Apply the same merge to our
 * tokens so both sides can be compared exactly.
 */
export function mergeLikeCli<T extends { id: number; bytes: Uint8Array; p: number; t0: number; t1: number }>(tokens: T[]) {
  const merged: Array<{ id: number; text: Buffer; p: number; t0: number; t1: number }> = [];
  for (let j = 0; j < tokens.length;) {
    const first = tokens[j];
    let text = Buffer.from(cString(first.bytes));
    let t1 = first.t1;
    j++;
    while (j < tokens.length && trailingBytesNeeded(text) > 0) {
      text = Buffer.concat([text, cString(tokens[j].bytes)]);
      if (tokens[j].t1 > -1) t1 = tokens[j].t1;
      j++;
    }
    merged.push({ id: first.id, text, p: first.p, t0: first.t0, t1 });
  }
  return merged;
}

/** whisper-cli handles token text as C strings: bytes after a NUL are not seen. */
function cString(bytes: Uint8Array): Buffer {
  const nul = bytes.indexOf(0);
  return Buffer.from(nul >= 0 ? bytes.subarray(0, nul) : bytes);
}

/** Port of whisper.cpp's utf8_trailing_bytes_needed (examples/common-whisper.cpp). */
function trailingBytesNeeded(s: Buffer): number {
  let i = s.length - 1;
  while (i >= 0 && (s[i] & 0xc0) === 0x80) i--;
  if (i < 0) return 0;
  const c = s[i];
  let expected: number;
  if ((c & 0x80) === 0x00) expected = 1;
  else if ((c & 0xe0) === 0xc0) expected = 2;
  else if ((c & 0xf0) === 0xe0) expected = 3;
  else if ((c & 0xf8) === 0xf0) expected = 4;
  else return 0;
  const have = s.length - i;
  return have >= expected ? 0 : expected - have;
}
