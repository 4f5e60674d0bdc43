// `npm test`: the whole tap suite, then one summary line "N passed, N failed" (CI reads it).
// Extra arguments go to tap, e.g. `npm test -- test/engine`. The webhook tests serve real HTTPS with
// a test CA that the test processes trust through NODE_EXTRA_CA_CERTS (read only at process start).
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extraCaCertificates } from './make-test-certificates.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tap = join(root, 'node_modules', 'tap', 'dist', 'esm', 'run.mjs');
const args = process.argv.slice(2);
const extraCa = extraCaCertificates();
const child = spawn(process.execPath, [tap, ...args], {
  cwd: root,
  env: { ...process.env, NODE_EXTRA_CA_CERTS: extraCa },
  stdio: ['inherit', 'pipe', 'inherit'],
});
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
  console.log(`${pass} passed, ${fail} failed`);
  process.exit(code ?? 1);
});
