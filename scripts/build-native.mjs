// Builds the addon and whisper-cli from the pinned whisper.cpp source with cmake-js.
//   node scripts/build-native.mjs            CPU build, tuned for this machine's SIMD (GGML_NATIVE)
//   node scripts/build-native.mjs --portable CPU build without -march=native, for prebuilds: on x86-64
//                                            it needs AVX2/FMA/F16C (Haswell and later), never AVX-512
//   node scripts/build-native.mjs --cuda     CUDA build (needs the CUDA toolkit with cuBLAS);
//                                            SVC_CUDA_ARCHITECTURES picks the GPU generations (e.g. "86;89")
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ensureWhisperSource } from './whisper-source.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const passthrough = process.argv.slice(2).filter((a) => !['--cuda', '--portable', '--rebuild'].includes(a));

ensureWhisperSource();

// Both values are always passed: CMake keeps cached options, so one passed only when "on" would leak
// into the next build of another flavour.
const flavour = {
  GGML_NATIVE: args.has('--portable') || process.env.SVC_PORTABLE === '1' ? 'OFF' : 'ON',
  GGML_CUDA: args.has('--cuda') || process.env.SVC_CUDA === '1' ? 'ON' : 'OFF',
};
const defines = Object.entries(flavour).map(([name, value]) => `--CD${name}=${value}`);
if (flavour.GGML_CUDA === 'ON') {
  defines.push(`--CDCMAKE_CUDA_ARCHITECTURES=${process.env.SVC_CUDA_ARCHITECTURES ?? 'native'}`);
}

// ggml derives its instruction-set options (GGML_AVX2, GGML_FMA, ...) from GGML_NATIVE only when it
// first caches them: a native build directory reconfigured as portable yields a binary with no AVX at
// all. So a change of flavour starts from an empty build directory.
function cachedFlavourDiffers() {
  const cacheFile = join(root, 'build', 'CMakeCache.txt');
  if (!existsSync(cacheFile)) return false;
  const cache = readFileSync(cacheFile, 'utf8');
  return Object.entries(flavour).some(([name, value]) => {
    const cached = new RegExp(`^${name}:BOOL=(.*)$`, 'm').exec(cache)?.[1].trim().toUpperCase();
    if (cached === undefined) return false;
    return (['ON', 'TRUE', 'YES', '1'].includes(cached) ? 'ON' : 'OFF') !== value;
  });
}

let verb = args.has('--rebuild') ? 'rebuild' : 'build';
if (verb === 'build' && cachedFlavourDiffers()) {
  console.error(`svc-stt: build/ was configured for another flavour; rebuilding from scratch (${defines.join(' ')})`);
  verb = 'rebuild';
}
const jobs = process.env.CMAKE_BUILD_PARALLEL_LEVEL ?? String(Math.max(1, (await import('node:os')).availableParallelism()));
// Resolved, not joined to ./node_modules: installed as a dependency, cmake-js is usually hoisted.
const cmakeJs = join(dirname(createRequire(import.meta.url).resolve('cmake-js/package.json')), 'bin', 'cmake-js');
const result = spawnSync(process.execPath, [cmakeJs, verb, '--parallel', jobs, ...defines, ...passthrough], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, CMAKE_BUILD_PARALLEL_LEVEL: jobs },
});
process.exit(result.status ?? 1);
