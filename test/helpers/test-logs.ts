// Server logs written during a test run, kept for the log audit that runs after the suite
// (test/adversarial/log-audit.audit.ts, started by scripts/run-tests.mjs). The runner names a fresh
// folder in SVC_TEST_LOG_DIR; test servers write their logs there, and tests record the secrets and
// contents the audit must not find in them ("canaries"). Without the variable nothing is kept.
import { appendFileSync, createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';

export const TEST_LOG_DIR_ENV = 'SVC_TEST_LOG_DIR';
export const LOG_SUFFIX = '.log';
export const CANARY_SUFFIX = '.canaries.jsonl';

export type CanaryKind = 'api_key' | 'webhook_secret' | 'transcript' | 'filename';

export interface Canary {
  kind: CanaryKind;
  value: string;
}

let files = 0;

export function testLogDir(): string | null {
  return process.env[TEST_LOG_DIR_ENV] || null;
}

/** A new log file of this process (`<kind>-<pid>-<n>.log`), or null when logs are not kept. */
export function openTestLog(kind: string): WriteStream | null {
  const dir = testLogDir();
  if (!dir) return null;
  files += 1;
  return createWriteStream(join(dir, `${kind}-${process.pid}-${files}${LOG_SUFFIX}`), { flags: 'a' });
}

/** Remembers a value no server log may contain. */
export function recordCanary(kind: CanaryKind, value: string): void {
  const dir = testLogDir();
  if (!dir || value === '') return;
  appendFileSync(join(dir, `${process.pid}${CANARY_SUFFIX}`), `${JSON.stringify({ kind, value } satisfies Canary)}\n`);
}

/** The service's log lines, kept in memory for the assertions and in the suite's log folder for the log audit. */
export function captureLogs(): { stream: Writable; lines: () => Record<string, unknown>[]; text: () => string } {
  const chunks: string[] = [];
  const kept = openTestLog('service');
  const stream = new Writable({
    // Done at once: waiting for the file's write would hold the next lines in the stream's buffer, and
    // a test reading lines() right after an answer would not see the lines logged before it (a loaded
    // CI run). The file stream keeps its own order, and `final` waits for it.
    write(chunk, _encoding, done) {
      chunks.push(chunk.toString());
      kept?.write(chunk);
      done();
    },
    final(done) {
      if (kept) kept.end(done);
      else done();
    },
  });
  const text = () => chunks.join('');
  return {
    stream,
    text,
    lines: () =>
      text()
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
