// Builds the addon and whisper-cli from the pinned whisper.cpp source with cmake-js.
//   node scripts/build-native.mjs            CPU build, tuned for this machine's SIMD (GGML_NATIVE)
//   node scripts/build-native.mjs --portable CPU build that runs on any x86-64 (for prebuilds)
//   node scripts/build-native.mjs --cuda     CUDA build (needs the CUDA toolkit with cuBLAS);
//                                            SVC_CUDA_ARCHITECTURES picks the GPU generations (e.g. "86;89")
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureWhisperSource } from './whisper-source.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const passthrough = process.argv.slice(2).filter((a) => !['--cuda', '--portable', '--rebuild'].includes(a));

ensureWhisperSource();

const defines = [];
if (args.has('--portable') || process.env.SVC_PORTABLE === '1') defines.push('--CDGGML_NATIVE=OFF');
if (args.has('--cuda') || process.env.SVC_CUDA === '1') {
  defines.push('--CDGGML_CUDA=ON');
  defines.push(`--CDCMAKE_CUDA_ARCHITECTURES=${process.env.SVC_CUDA_ARCHITECTURES ?? 'native'}`);
}
const jobs = process.env.CMAKE_BUILD_PARALLEL_LEVEL ?? String(Math.max(1, (await import('node:os')).availableParallelism()));
const cmakeJs = join(root, 'node_modules', 'cmake-js', 'bin', 'cmake-js');
const verb = args.has('--rebuild') ? 'rebuild' : 'build';
const result = spawnSync(process.execPath, [cmakeJs, verb, '--parallel', jobs, ...defines, ...passthrough], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, CMAKE_BUILD_PARALLEL_LEVEL: jobs },
});
process.exit(result.status ?? 1);
