// `npm test`: the whole tap suite, then the log audit over the server logs the suite wrote, then one
// summary line "N passed, N failed" covering both (CI reads it). Extra arguments go to the first tap
// run, e.g. `npm test -- test/engine`; a folder runs its *.test.ts files (tap itself would run every
// script in it, helpers included, as it does not apply `include` to folders). The webhook tests serve real HTTPS with a test CA that the
// test processes trust through NODE_EXTRA_CA_CERTS (read only at process start).
//
// Server logs: test servers write them into a fresh folder under test/.cache/logs/ named by
// SVC_TEST_LOG_DIR (test/helpers/test-logs.ts). The audit (test/adversarial/log-audit.audit.ts)
// must see all of them, and tap runs test files in parallel in no fixed order, so it is a second
// tap run after the first. The folder is removed when both pass and kept (and named) otherwise.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extraCaCertificates } from './make-test-certificates.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tap = join(root, 'node_modules', 'tap', 'dist', 'esm', 'run.mjs');
const audit = join('test', 'adversarial', 'log-audit.audit.ts');
const logRoot = join(root, 'test', '.cache', 'logs');
// Folders of runs that did not clean up (failed, or killed) are kept a day for a look, then go.
const KEEP_FAILED_RUN_LOGS_MS = 24 * 3600 * 1000;

pruneOldRuns();
const logDir = join(logRoot, `run-${Date.now()}-${process.pid}`);
mkdirSync(logDir, { recursive: true });
const env = { ...process.env, NODE_EXTRA_CA_CERTS: extraCaCertificates(), SVC_TEST_LOG_DIR: logDir };

const suite = await runTap(process.argv.slice(2).map(testFilesOf));
const logs = await runTap([audit]);
const pass = suite.pass + logs.pass;
const fail = suite.fail + logs.fail;
if (fail === 0 && suite.code === 0 && logs.code === 0) rmSync(logDir, { recursive: true, force: true });
else console.log(`server logs of this run are kept in ${logDir}`);
console.log(`${pass} passed, ${fail} failed`);
process.exit(suite.code || logs.code);

/** One tap run with its output passed through; its counts come from tap's last summary line. */
function runTap(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [tap, ...args], { cwd: root, env, stdio: ['inherit', 'pipe', 'inherit'] });
    let tail = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      tail = (tail + chunk.toString()).slice(-4096);
    });
    child.on('close', (code) => {
      // tap ends with a line such as "# { total: 12, pass: 11, fail: 1 }".
      const match = /#\s*\{\s*total:\s*(\d+)(?:,\s*pass:\s*(\d+))?(?:,\s*fail:\s*(\d+))?/.exec(tail);
      const pass = match?.[2] ? Number(match[2]) : 0;
      const fail = match?.[3] ? Number(match[3]) : code === 0 ? 0 : Math.max(1, Number(match?.[1] ?? 1) - pass);
      resolve({ code: code ?? 1, pass, fail });
    });
  });
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

function pruneOldRuns() {
  let entries = [];
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
