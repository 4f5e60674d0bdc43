// `npm test`: the whole tap suite, then the log audit over the server logs the suite wrote, then one
// summary line "N passed, N failed" covering both (CI reads it). Extra arguments go to the first tap
// run, e.g. `npm test -- test/engine`; a folder runs its *.test.ts files (tap itself would run every
// script in it, helpers included, as it does not apply `include` to folders); `--unit` stands for the
// fast tier's files (test/unit-tier.json, `npm run test:unit`). The webhook tests serve real HTTPS with a test CA that the
// test processes trust through NODE_EXTRA_CA_CERTS (read only at process start).
//
// Server logs: test servers write them into a fresh folder under test/.cache/logs/ named by
// SVC_TEST_LOG_DIR (test/helpers/test-logs.ts). The audit (test/adversarial/log-audit.audit.ts)
// must see all of them, and tap runs test files in parallel in no fixed order, so it is a second
// tap run after the first. The folder is removed when both pass and kept (and named) otherwise.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { extraCaCertificates } from './make-test-certificates.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tap = join(root, 'node_modules', 'tap', 'dist', 'esm', 'run.mjs');
const audit = join('test', 'adversarial', 'log-audit.audit.ts');
const logRoot = join(root, 'test', '.cache', 'logs');
// Folders of runs that did not clean up (failed, or killed) are kept a day for a look, then go.
const KEEP_FAILED_RUN_LOGS_MS = 24 * 3600 * 1000;
// The lines of a failure's diagnostic block worth repeating in the summary.
const TELLING = /^\s*(found|wanted|pattern|message|compare|fileName|lineNumber|[+-][^-]|[+-]$)/;

pruneOldRuns();
await buildTapIfStale();
const logDir = join(logRoot, `run-${Date.now()}-${process.pid}`);
mkdirSync(logDir, { recursive: true });
// The engine's calls each hold a libuv pool thread (bin/svc-stt.js sizes the pool for the service the same way).
const env = { UV_THREADPOOL_SIZE: '16', ...process.env, NODE_EXTRA_CA_CERTS: extraCaCertificates(), SVC_TEST_LOG_DIR: logDir };

// `--unit`: the fast tier's files (test/unit-tier.json) in place of the flag.
const args = process.argv.slice(2).flatMap((arg) => (arg === '--unit' ? unitTierFiles() : [arg]));
const suite = await runTap(args.map(testFilesOf));
const logs = await runTap([audit]);
const pass = suite.pass + logs.pass;
const fail = suite.fail + logs.fail;
if (fail === 0 && suite.code === 0 && logs.code === 0) rmSync(logDir, { recursive: true, force: true });
else console.log(`server logs of this run are kept in ${logDir}`);
// CI keeps only the output's tail: the failures are repeated there, each with its subtest path.
const failures = [...suite.failures, ...logs.failures];
if (failures.length > 0) console.log(`failures (${failures.length}):\n${failures.slice(0, 20).join('\n')}`);
console.log(`${pass} passed, ${fail} failed`);
process.exit(suite.code || logs.code);

/** One tap run with its output passed through; its counts come from tap's last summary line. */
function runTap(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [tap, ...args], { cwd: root, env, stdio: ['inherit', 'pipe', 'inherit'] });
    let tail = '';
    const failures = failureCollector();
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      tail = (tail + chunk.toString()).slice(-4096);
      failures.feed(chunk.toString());
    });
    child.on('close', (code) => {
      // tap ends with a line such as "# { total: 12, pass: 11, fail: 1 }".
      const match = /#\s*\{\s*total:\s*(\d+)(?:,\s*pass:\s*(\d+))?(?:,\s*fail:\s*(\d+))?/.exec(tail);
      const pass = match?.[2] ? Number(match[2]) : 0;
      const fail = match?.[3] ? Number(match[3]) : code === 0 ? 0 : Math.max(1, Number(match?.[1] ?? 1) - pass);
      resolve({ code: code ?? 1, pass, fail, failures: failures.found });
    });
  });
}

/**
 * Reads TAP as it streams: each `not ok` with the subtests it sits in (tracked by indentation, four
 * spaces a level) and the telling lines of its diagnostic block. A subtest's own closing `not ok`
 * repeats what failed inside it and is left out, unless nothing inside failed (a file that crashed).
 */
function failureCollector() {
  const path = [];
  const entries = [];
  let pending = '';
  let open = null; // the failure whose diagnostic block is being read
  const line = (text) => {
    if (open) {
      if (/^\s*\.\.\.\s*$/.test(text) || open.lines.length >= 12) open = null;
      else if (TELLING.test(text)) open.lines.push(text.trim());
      return;
    }
    const depth = Math.floor(/^ */.exec(text)[0].length / 4);
    const subtest = /^\s*# Subtest: (.*)$/.exec(text);
    if (subtest) {
      path.length = depth;
      path.push(subtest[1]);
      return;
    }
    const failed = /^\s*not ok \d+ - (.*)$/.exec(text);
    if (failed && path[depth] !== undefined && failed[1].startsWith(path[depth])) {
      const inside = `${path.slice(0, depth + 1).join(' › ')} › `;
      if (entries.some((e) => e.name.startsWith(inside))) return;
    }
    if (failed) {
      open = { name: [...path.slice(0, depth), failed[1]].join(' › '), lines: [] };
      entries.push(open);
    }
  };
  return {
    feed(chunk) {
      const lines = (pending + chunk).split('\n');
      pending = lines.pop();
      for (const l of lines) line(l);
    },
    get found() {
      return entries.map((e) => `  ✗ ${e.name}${e.lines.length ? `\n      ${e.lines.join('\n      ')}` : ''}`);
    },
  };
}

/** A folder argument as a glob of the test files in it; anything else unchanged. */
function testFilesOf(arg) {
  if (arg.startsWith('-')) return arg;
  try {
    return statSync(join(root, arg)).isDirectory() ? `${arg.replace(/\/+$/, '')}/**/*.test.ts` : arg;
  } catch {
    return arg;
  }
}

function unitTierFiles() {
  return JSON.parse(readFileSync(join(root, 'test', 'unit-tier.json'), 'utf8')).files;
}

function pruneOldRuns() {
  let entries;
  try {
    entries = readdirSync(logRoot);
  } catch {
    return;
  }
  for (const name of entries) {
    const path = join(logRoot, name);
    if (name.startsWith('run-') && Date.now() - statSync(path).mtimeMs > KEEP_FAILED_RUN_LOGS_MS) rmSync(path, { recursive: true, force: true });
  }
}

/**
 * tap rebuilds its Test class when the plugins configured in package.json ("tap") differ from the
 * built ones, but the run that rebuilds still starts its test processes with the old build's loaders
 * (@tapjs/run: run.js, test-argv.js): on a fresh clone every file then loaded through ts-node as well
 * as tsx. Built first, the suite's own run starts with the configured loaders.
 */
async function buildTapIfStale() {
  // @tapjs/config parses this process's arguments as tap's own (it takes them when it is imported):
  // ours (`--unit`, test files) are not tap's options, so it reads none.
  const ours = process.argv;
  process.argv = ours.slice(0, 2);
  try {
    const { TapConfig } = await import('@tapjs/config');
    const { signature } = await import('@tapjs/test');
    if ((await TapConfig.load()).pluginSignature === signature) return;
  } finally {
    process.argv = ours;
  }
  const built = spawnSync(process.execPath, [tap, 'build'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
