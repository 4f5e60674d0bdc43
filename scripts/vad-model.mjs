// Converts Silero VAD from its pinned npm carrier into models/ggml-silero-v*.bin (see
// src/models/silero-vad-install.ts). The converter is TypeScript compiled to dist/, so this runs from
// `prepare`, right after tsc, in a checkout, and from the install hook with --if-built, which in a
// published package (dist/ shipped) does the work and in a fresh checkout (install runs before
// prepare, dist/ not built yet) leaves it to prepare. SVC_VAD_TARBALL names a tarball for offline use.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const installer = join(root, 'dist', 'models', 'silero-vad-install.js');

if (!existsSync(installer)) {
  if (process.argv.includes('--if-built')) {
    console.error('svc-stt: dist/ is not built yet; `prepare` converts the VAD model after compiling');
    process.exit(0);
  }
  console.error(`svc-stt: ${installer} is missing; run \`npm run build\` first`);
  process.exit(1);
}

const { ensureSileroVadModels } = await import(pathToFileURL(installer).href);
try {
  await ensureSileroVadModels({ modelsDir: join(root, 'models'), cacheDir: join(root, 'deps', 'cache') });
} catch (error) {
  console.error(`svc-stt: ${error instanceof Error ? error.message : error}`);
  process.exit(1);
}
