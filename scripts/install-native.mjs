// npm's install hook: keep a prebuilt or already-built addon that loads on this machine; otherwise
// fetch the pinned whisper.cpp source and build the addon (and whisper-cli) from it.
// SVC_FORCE_BUILD=1 always builds; so does SVC_CUDA=1, since prebuilds are CPU-only.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** Why no usable addon is here (no prebuild for this platform, a missing shared library, ...), or null. */
function addonLoadFailure() {
  try {
    require('node-gyp-build')(root);
    return null;
  } catch (error) {
    return String(error instanceof Error ? error.message : error).split('\n')[0];
  }
}

const forced = process.env.SVC_FORCE_BUILD === '1' ? 'SVC_FORCE_BUILD=1' : process.env.SVC_CUDA === '1' ? 'SVC_CUDA=1' : null;
const failure = forced ? null : addonLoadFailure();
if (!forced && failure === null) {
  console.error('svc-stt: native addon present and loadable; skipping the source build');
} else {
  console.error(`svc-stt: building the native addon from source (${forced ?? failure})`);
  const result = spawnSync(process.execPath, [join(root, 'scripts', 'build-native.mjs')], { cwd: root, stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
