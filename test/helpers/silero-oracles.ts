// Silero VAD files that tests compare against: upstream's ONNX releases and whisper.cpp's official ggml
// conversions, kept outside the repository in ../shared/models/silero (see its MANIFEST.md). A user's
// clone has no ../shared: the checks against these oracles are then skipped, saying why
// (SILERO_ORACLES_MISSING as tap's skip reason), and the tests of behaviour run on the model the install
// converted (VAD_MODEL_UNDER_TEST).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { defaultVadModelPath } from '../../src/models/vad-model-path.js';

export const SILERO_ORACLES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'models', 'silero');

const FILES = {
  onnxV5: 'silero_vad-v5.1.2.onnx',
  onnxV6: 'silero_vad-v6.2.1.onnx',
  officialGgmlV5: 'ggml-silero-v5.1.2.bin',
  officialGgmlV6: 'ggml-silero-v6.2.0.bin',
} as const;

/** tap's skip reason while any oracle is absent; false when all are here. */
export const SILERO_ORACLES_MISSING: string | false = Object.values(FILES).every((name) => existsSync(join(SILERO_ORACLES_DIR, name)))
  ? false
  : `the Silero oracles are not here (${SILERO_ORACLES_DIR}; ../shared/models/MANIFEST.md): checks against whisper.cpp's official files skipped`;

function oracle(name: string): string {
  const path = join(SILERO_ORACLES_DIR, name);
  if (!existsSync(path)) throw new Error(`${path} is missing: the Silero oracles live in ../shared/models/silero (MANIFEST.md there)`);
  return path;
}

export const sileroOracles = {
  onnxV5: () => oracle(FILES.onnxV5),
  onnxV6: () => oracle(FILES.onnxV6),
  officialGgmlV5: () => oracle(FILES.officialGgmlV5),
  officialGgmlV6: () => oracle(FILES.officialGgmlV6),
};

/**
 * A v6 Silero model for tests of behaviour, not of the conversion: whisper.cpp's official file where the
 * oracles are, else the one the install converted (held byte for byte to it, tensor by tensor, by
 * silero-converter.test.ts where the oracles are).
 */
export const VAD_MODEL_UNDER_TEST: { path: string; version: string } = SILERO_ORACLES_MISSING
  ? { path: defaultVadModelPath(), version: '6.2.1' }
  : { path: oracle(FILES.officialGgmlV6), version: '6.2.0' };
