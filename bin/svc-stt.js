#!/usr/bin/env node
// The svc-stt command. The TypeScript sources are compiled to dist/ by `npm install` (prepare).
// Checked before anything loads: on another Node.js major the SQLite driver would crash the process
// (better-sqlite3 13 needs 22 or later) instead of saying what is wrong.
import os from 'node:os';

const SUPPORTED_MAJOR = 24;
const major = Number(process.versions.node.split('.')[0]);
if (major !== SUPPORTED_MAJOR) {
  process.stderr.write(`svc-stt: needs Node.js ${SUPPORTED_MAJOR} LTS; this is Node.js ${process.version}\n`);
  process.exit(1);
}
// Every engine call holds a libuv pool thread while it computes (a whisper call waits there for its
// compute thread, a VAD call computes on it), and with spare workers for urgent calls (held batch calls
// keep theirs) the default 4 would leave VAD calls and file system work waiting behind the engine's.
// Read once, when the pool first starts, so set before anything loads.
process.env.UV_THREADPOOL_SIZE ??= String(uvThreadpoolSize(os.availableParallelism()));
import('../dist/cli/main.js').then((cli) => cli.main(process.argv.slice(2)));

/** Whisper workers and their spare workers (2 per core up to 16), VAD workers and theirs (4), 8 for the rest. */
function uvThreadpoolSize(cores) {
  return Math.min(1024, 2 * Math.min(cores, 8) + 4 + 8);
}
