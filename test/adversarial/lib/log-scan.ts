// Looks through server logs for what they must never hold (docs/DESIGN.md "Reliability rules", contract
// rule "events never contain transcript text, filenames"): API keys, webhook signing secrets,
// transcript text, uploaded file names. Keys and secrets are found by their shapes, so every key any
// test made is covered whether or not it was recorded; recorded canaries (test-logs.ts) add exact
// values, e.g. a key's secret part alone, and the transcripts the tests received.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { MEDICAL_SENTENCES } from '../../helpers/audio-fixtures.js';
import { type Canary, CANARY_SUFFIX, LOG_SUFFIX } from '../../helpers/test-logs.js';

export interface LogFinding {
  file: string;
  line: number;
  what: string;
}

export interface LogScan {
  files: number;
  lines: number;
  canaries: number;
  findings: LogFinding[];
}

/** Shapes of secrets (src/store/api-key-secret.ts: svc_<12 base62>_<43 base64url>; whsec_<base64>). */
const SECRET_SHAPES: ReadonlyArray<readonly [what: string, pattern: RegExp]> = [
  ['an API key', /svc_[0-9A-Za-z]{12}_[A-Za-z0-9_-]{8,}/],
  ['a webhook signing secret', /whsec_[A-Za-z0-9+/=]{8,}/],
  // A realtime client secret (src/store/realtime-client-secret-record.ts): single-use and short-lived, but a credential all the same.
  ['a realtime client secret', /(^|[^A-Za-z0-9])ek_[A-Za-z0-9_-]{43}/],
];

/**
 * File names other test files upload (their canaries are not recorded). Not `recording.mp3`: no test
 * uploads it, it is the example in the first-start banner's curl line (src/cli/serve-command.ts).
 */
const OTHER_TEST_FILENAMES = ['visit.wav', 'memo.m4a', 'photo.wav', 'empty.wav', 'browser.webm', 'a.wav', 'a.m4a', 'd.wav', 'long.wav'];
/** A key's secret part is the last 43 characters (also worth finding alone). */
const KEY_SECRET_LENGTH = 43;
/** Transcripts shorter than this are too likely to occur by chance. */
const MIN_TRANSCRIPT_LENGTH = 12;

interface Needle {
  what: string;
  test: (line: string) => boolean;
}

function needles(canaries: Canary[]): Needle[] {
  const list: Needle[] = SECRET_SHAPES.map(([what, pattern]) => ({ what, test: (line) => pattern.test(line) }));
  const contains = (what: string, value: string, caseless = false) => {
    const needle = caseless ? value.toLowerCase() : value;
    list.push({ what, test: (line) => (caseless ? line.toLowerCase() : line).includes(needle) });
  };
  for (const sentence of MEDICAL_SENTENCES) contains('fixture speech text', sentence, true);
  // A file name stands alone: "a.wav" must not match inside "data.wav".
  for (const name of OTHER_TEST_FILENAMES) {
    const pattern = new RegExp(`(^|[^A-Za-z0-9_.-])${name.replace(/\./g, '\\.')}`);
    list.push({ what: 'an uploaded file name', test: (line) => pattern.test(line) });
  }
  for (const { kind, value } of canaries) {
    if (kind === 'api_key') {
      contains('an API key', value);
      contains("an API key's secret", value.slice(-KEY_SECRET_LENGTH));
    } else if (kind === 'webhook_secret') contains('a webhook signing secret', value);
    else if (kind === 'filename') contains('an uploaded file name', value);
    else if (value.length >= MIN_TRANSCRIPT_LENGTH) contains('transcript text', value);
  }
  return list;
}

function readCanaries(dir: string, names: string[]): Canary[] {
  return names
    .filter((name) => name.endsWith(CANARY_SUFFIX))
    .flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean))
    .map((line) => JSON.parse(line) as Canary);
}

/** Every log file in `dir` against every needle; findings say where and what, never the value. */
export function scanLogs(dir: string): LogScan {
  const names = readdirSync(dir).sort();
  const canaries = readCanaries(dir, names);
  const checks = needles(canaries);
  const scan: LogScan = { files: 0, lines: 0, canaries: canaries.length, findings: [] };
  for (const name of names.filter((n) => n.endsWith(LOG_SUFFIX))) {
    scan.files += 1;
    const lines = readFileSync(join(dir, name), 'utf8').split('\n');
    lines.forEach((line, index) => {
      if (line === '') return;
      scan.lines += 1;
      for (const check of checks) if (check.test(line)) scan.findings.push({ file: name, line: index + 1, what: check.what });
    });
  }
  return scan;
}
