// The install step that converts Silero VAD from its npm carrier, run against the real tarball: the
// one in deps/cache when an install already fetched it, otherwise one `npm pack` into a temporary
// directory (the npm registry is reachable wherever `npm ci` is).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import tap from 'tap';

import { ensureSileroVadModels, SILERO_VAD_CARRIER, SILERO_VAD_RELEASES, SileroVadInstallError } from '../../src/models/silero-vad-install.js';
import { readVadModelHeader } from '../../src/models/vad-model-header.js';
import { SILERO_ORACLES_MISSING, sileroOracles } from '../helpers/silero-oracles.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = await mkdtemp(join(tmpdir(), 'svc-vad-install-'));
tap.teardown(() => rm(dir, { recursive: true, force: true }));

const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

async function carrierTarball(): Promise<string> {
  const cached = join(root, 'deps', 'cache', 'ricky0123-vad-web-0.0.31.tgz');
  if (existsSync(cached) && (await sha256(cached)) === SILERO_VAD_CARRIER.sha256) return cached;
  const out = execFileSync('npm', ['pack', SILERO_VAD_CARRIER.package, '--pack-destination', dir, '--json', '--silent'], { encoding: 'utf8' });
  return join(dir, (JSON.parse(out) as { filename: string }[])[0].filename);
}

const tarball = await carrierTarball();
process.env[SILERO_VAD_CARRIER.tarballEnv] = tarball;

tap.test('converts both releases from the tarball named by SVC_VAD_TARBALL, then keeps them', async (t) => {
  const modelsDir = join(dir, 'models');
  const cacheDir = join(dir, 'cache');
  const lines: string[] = [];
  const paths = await ensureSileroVadModels({ modelsDir, cacheDir, log: (line) => lines.push(line) });

  t.same(paths, [join(modelsDir, 'ggml-silero-v6.2.1.bin'), join(modelsDir, 'ggml-silero-v5.1.2.bin')], 'default (v6) first');
  for (const [i, release] of SILERO_VAD_RELEASES.entries()) {
    t.equal(await sha256(paths[i]), release.sha256, `${release.file} has its pinned hash`);
  }
  t.match(await readVadModelHeader(paths[0]), { version: '6.2.1' });
  if (SILERO_ORACLES_MISSING) t.comment(SILERO_ORACLES_MISSING);
  else t.equal(await sha256(paths[1]), await sha256(sileroOracles.officialGgmlV5()), "v5.1.2 is whisper.cpp's official file");
  t.same(await readdir(modelsDir), ['ggml-silero-v5.1.2.bin', 'ggml-silero-v6.2.1.bin'], 'no temporary file left');
  t.same(await readdir(cacheDir), [], 'nothing fetched, no staging left');
  t.equal(lines.length, 2);

  const before = (await stat(paths[0])).mtimeMs;
  lines.length = 0;
  await ensureSileroVadModels({ modelsDir, cacheDir, tarball: join(dir, 'not-needed.tgz'), log: (line) => lines.push(line) });
  t.match(lines, [/up to date/], 'a second run does nothing (it does not even open the tarball)');
  t.equal((await stat(paths[0])).mtimeMs, before);

  // A damaged conversion is replaced; the intact one is left alone.
  await writeFile(paths[0], (await readFile(paths[0])).subarray(0, 1000));
  lines.length = 0;
  await ensureSileroVadModels({ modelsDir, cacheDir, log: (line) => lines.push(line) });
  t.equal(await sha256(paths[0]), SILERO_VAD_RELEASES[0].sha256);
  t.match(lines, [/Silero VAD 6\.2\.1 converted/]);
});

tap.test('refuses a tarball whose sha256 is not the pinned one', async (t) => {
  const tampered = join(dir, 'tampered.tgz');
  const bytes = await readFile(tarball);
  bytes[bytes.length - 100] ^= 0xff;
  await writeFile(tampered, bytes);
  const modelsDir = join(dir, 'models-tampered');
  const error = await ensureSileroVadModels({ modelsDir, cacheDir: join(dir, 'cache-tampered'), tarball: tampered, log: () => {} }).catch((e: unknown) => e);
  t.type(error, SileroVadInstallError);
  t.match((error as Error).message, /has sha256 [0-9a-f]{64}, expected d1a211cf.*refusing/);
  t.notOk(existsSync(modelsDir), 'nothing converted');
  t.ok(existsSync(tampered), 'a tarball the caller named is refused, not deleted');
});

tap.test('the script leaves the work to prepare while dist/ is not built', async (t) => {
  // A package root with the script and no dist/, as in a fresh checkout during npm's install hook.
  const packageRoot = await mkdtemp(join(dir, 'checkout-'));
  const script = join(packageRoot, 'scripts', 'vad-model.mjs');
  await mkdir(dirname(script));
  await copyFile(join(root, 'scripts', 'vad-model.mjs'), script);
  const ifBuilt = execFileSync(process.execPath, [script, '--if-built'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  t.equal(ifBuilt, '', 'install hook: exits 0');
  t.throws(() => execFileSync(process.execPath, [script], { stdio: 'ignore' }), 'prepare: a missing build is an error');
});
