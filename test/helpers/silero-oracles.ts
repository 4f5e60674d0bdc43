// Silero VAD files that tests compare against: upstream's ONNX releases and whisper.cpp's official ggml
// conversions, kept outside the repository in ../shared/models/silero (see its MANIFEST.md).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SILERO_ORACLES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'models', 'silero');

function oracle(name: string): string {
  const path = join(SILERO_ORACLES_DIR, name);
  if (!existsSync(path)) throw new Error(`${path} is missing: the Silero oracles live in ../shared/models/silero (MANIFEST.md there)`);
  return path;
}

export const sileroOracles = {
  onnxV5: () => oracle('silero_vad-v5.1.2.onnx'),
  onnxV6: () => oracle('silero_vad-v6.2.1.onnx'),
  officialGgmlV5: () => oracle('ggml-silero-v5.1.2.bin'),
  officialGgmlV6: () => oracle('ggml-silero-v6.2.0.bin'),
};
