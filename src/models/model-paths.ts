// Where model files live and how a model argument (a path or a manifest name) becomes a file.
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

export function modelsDir(): string {
  // Empty means unset, as for the other SVC_* paths.
  return resolve(process.env.SVC_MODELS_DIR || 'models');
}

/** The file a model name stands for: `ggml-NAME.bin` in the models directory (as `models download` writes it). */
export function modelFileOfName(name: string): string {
  return join(modelsDir(), `ggml-${name}.bin`);
}

/**
 * Whether a model argument names a file rather than a model. Model names ("base", "large-v3-turbo-q5_0")
 * never hold a path separator nor end in ".bin", so such an argument is a path even when the file is
 * missing: the error then names the file the user meant, not models/ggml-x.bin.bin.
 */
export function isModelPathArgument(modelArg: string): boolean {
  return isAbsolute(modelArg) || /[/\\]/.test(modelArg) || modelArg.endsWith('.bin') || existsSync(modelArg);
}

/** A path is used as is; otherwise a name like "base" means models/ggml-base.bin. */
export function resolveModelFile(modelArg: string): string {
  return isModelPathArgument(modelArg) ? resolve(modelArg) : modelFileOfName(modelArg);
}
