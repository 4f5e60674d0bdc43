// Fetches whisper.cpp's source from the npm registry (the only source host these machines reach),
// verifies it byte-for-byte against a pinned SHA-256 and unpacks it into deps/whisper.cpp.
// Nothing of it is committed: deps/ is git-ignored and recreated from the pin.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const WHISPER_PIN = {
  version: '1.9.1',
  carrier: 'nodejs-whisper@0.3.1',
  carrierPath: 'package/cpp/whisper.cpp',
  sha256: '92041caf2b26c74b7f489fedf37bd093f216eebd61df512045ec2d19d0531d37',
};

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const whisperDir = join(root, 'deps', 'whisper.cpp');
const stampFile = join(whisperDir, '.svc-stt-pin');

function sha256(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

export function ensureWhisperSource({ log = console.error } = {}) {
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === WHISPER_PIN.sha256) {
    return whisperDir;
  }
  const cache = join(root, 'deps', 'cache');
  mkdirSync(cache, { recursive: true });
  let tarball = process.env.SVC_WHISPER_TARBALL;
  if (!tarball) {
    log(`svc-stt: fetching whisper.cpp ${WHISPER_PIN.version} from the npm registry (${WHISPER_PIN.carrier})`);
    const out = execFileSync('npm', ['pack', WHISPER_PIN.carrier, '--pack-destination', cache, '--json', '--silent'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    tarball = join(cache, JSON.parse(out)[0].filename);
  }
  const actual = sha256(tarball);
  if (actual !== WHISPER_PIN.sha256) {
    rmSync(tarball, { force: true });
    throw new Error(`whisper.cpp carrier ${tarball} has sha256 ${actual}, expected ${WHISPER_PIN.sha256}; refusing to build from it`);
  }
  const staging = join(root, 'deps', `whisper.cpp.staging-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', staging, '--strip-components=3', WHISPER_PIN.carrierPath], { stdio: 'inherit' });
  if (!readdirSync(staging).includes('CMakeLists.txt')) {
    throw new Error('whisper.cpp carrier did not contain a CMake project');
  }
  writeFileSync(join(staging, '.svc-stt-pin'), WHISPER_PIN.sha256 + '\n');
  rmSync(whisperDir, { recursive: true, force: true });
  renameSync(staging, whisperDir);
  log(`svc-stt: whisper.cpp ${WHISPER_PIN.version} verified (sha256 ${WHISPER_PIN.sha256.slice(0, 12)}...) in deps/whisper.cpp`);
  return whisperDir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  ensureWhisperSource();
}
