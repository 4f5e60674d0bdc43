// Where model files live and how a model argument (a path or a manifest name) becomes a file.
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

export function modelsDir(): string {
  return resolve(process.env.SVC_MODELS_DIR ?? 'models');
}

/** A path that exists is used as is; otherwise a name like "base" means models/ggml-base.bin. */
export function resolveModelFile(modelArg: string): string {
  if (isAbsolute(modelArg) || existsSync(modelArg)) return resolve(modelArg);
  return join(modelsDir(), `ggml-${modelArg}.bin`);
}
