#!/usr/bin/env node
// The svc-stt command. The TypeScript sources are compiled to dist/ by `npm install` (prepare).
// Checked before anything loads: on another Node.js major the SQLite driver would crash the process
// (better-sqlite3 13 needs 22 or later) instead of saying what is wrong.
const SUPPORTED_MAJOR = 24;
const major = Number(process.versions.node.split('.')[0]);
if (major !== SUPPORTED_MAJOR) {
  process.stderr.write(`svc-stt: needs Node.js ${SUPPORTED_MAJOR} LTS; this is Node.js ${process.version}\n`);
  process.exit(1);
}
import('../dist/cli/main.js').then((cli) => cli.main(process.argv.slice(2)));
