// npm's install hook: keep a prebuilt or already-built addon that loads on this machine; otherwise
// fetch the pinned whisper.cpp source and build the addon (and whisper-cli) from it.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

function addonLoads() {
  try {
    require('node-gyp-build')(root);
    return true;
  } catch {
    return false;
  }
}

if (process.env.SVC_FORCE_BUILD !== '1' && addonLoads()) {
  console.error('svc-stt: native addon present and loadable; skipping the source build');
} else {
  const result = spawnSync(process.execPath, [join(root, 'scripts', 'build-native.mjs')], { cwd: root, stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
