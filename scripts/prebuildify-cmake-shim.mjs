#!/usr/bin/env node
// prebuildify drives node-gyp; this stands in for it and runs our cmake-js build instead. Prebuilds
// are shipped to other machines, so they are built portable (no -march=native): see build-native.mjs.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// prebuildify passes node-gyp arguments (rebuild --target=... --release); only the debug flag matters.
const debug = process.argv.includes('--debug');
// A CUDA binary would fail to load wherever the CUDA runtime is missing: prebuilds are CPU-only.
const env = { ...process.env };
delete env.SVC_CUDA;
const result = spawnSync(process.execPath, [join(root, 'scripts', 'build-native.mjs'), '--portable', '--rebuild', ...(debug ? ['--debug'] : [])], {
  cwd: root,
  stdio: 'inherit',
  env,
});
process.exit(result.status ?? 1);
