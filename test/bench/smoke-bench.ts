// The smoke run every bench gets in the suite (issue 49): `npm run bench -- NAME` with its smallest
// inputs runs to its end, exits 0, prints a table and then its one JSON line with the figures' keys
// of the right types. A bench that no longer runs is a defect (`bench upload` once waited for a ready
// line the server had stopped printing, and hung). Figures are the bench's to judge, never a test's:
// a shape asserts a value only for an invariant of behaviour (0 lost jobs, 0 server errors).
import { type ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { Test } from 'tap';

export const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..', '..');
/** printTable's rule under its header row: dashes in columns two spaces apart. */
const TABLE_RULE = /^-+( {2}-+)*$/;

export interface SmokeOptions {
  /** Past this (4 minutes) the bench is taken for hung: killed with everything it started, and the test fails. */
  timeoutMs?: number;
  /** Why the bench cannot run here (data it needs is missing): the test is skipped, with the reason. */
  skip?: string | false;
}

/** A subtest that runs `npm run bench -- name ...args` and checks its output against `shape` (tap's t.match). */
export async function smokeBench(t: Test, name: string, args: string[], shape: Record<string, unknown>, options: SmokeOptions = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 240_000;
  const title = `bench ${[name, ...args].join(' ')}: a table, then its JSON line last, exit 0`;
  await t.test(title, { skip: options.skip || false }, async (t) => {
    const started = performance.now();
    const run = await runBench(name, args, timeoutMs);
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    t.comment(`bench ${name}: ${seconds} s`);
    t.notOk(run.timedOut, `finished within ${timeoutMs / 1000} s (killed otherwise)`);
    t.equal(run.code, 0, 'exit 0', { stderr: run.stderr.slice(-2000) });
    const lines = run.stdout.trimEnd().split('\n');
    let last: unknown;
    try {
      last = JSON.parse(lines.at(-1) ?? '');
    } catch {
      t.fail(`the last line is JSON: ${lines.slice(-3).join('\n')}`);
      return;
    }
    t.match(last, { bench: name, ...shape }, 'the JSON line names the bench and has its figures');
    const rule = lines.findIndex((line) => TABLE_RULE.test(line));
    t.ok(rule > 0 && rule < lines.length - 1 && lines[rule - 1].trim() !== '', 'a table (header row and rule) came before it');
  });
}

interface BenchRun {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

function runBench(name: string, args: string[], timeoutMs: number): Promise<BenchRun> {
  // Without tap's NODE_OPTIONS (its process tracking), which only slows the bench down.
  const { NODE_OPTIONS: _, ...env } = process.env;
  // Its own process group, so a hung bench goes with the servers and children it started.
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'run.ts'), name, ...args], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-20_000)));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child);
  }, timeoutMs);
  return new Promise((resolve) => {
    let done = false;
    const finish = (code: number | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    };
    child.on('close', finish);
    // A process the bench left behind may hold its output open: its exit is the end, less a moment for the last lines.
    child.on('exit', (code) => setTimeout(() => finish(code), 2000));
  });
}

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}
