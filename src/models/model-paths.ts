// Where model files live and how a model argument (a path or a manifest name) becomes a file: the one
// rule for --model, SVC_MODEL and SVC_EDGE_MODEL alike (the CLI and the service configuration).
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

type Env = Record<string, string | undefined>;

export function modelsDir(env: Env = process.env): string {
  // Empty means unset, as for the other SVC_* paths.
  return resolve(env.SVC_MODELS_DIR || 'models');
}

/** The file a model name stands for: `ggml-NAME.bin` in the models directory (as `models download` writes it). */
export function modelFileOfName(name: string, env: Env = process.env): string {
  return join(modelsDir(env), `ggml-${name}.bin`);
}

/**
 * Whether a model argument names a file rather than a model. Model names ("base", "large-v3-turbo-q5_0")
 * never hold a path separator nor end in ".bin", so such an argument is a path even when the file is
 * missing: the error then names the file the user meant, not models/ggml-x.bin.bin.
 */
export function isModelPathArgument(modelArg: string, baseDir = process.cwd()): boolean {
  return isAbsolute(modelArg) || /[/\\]/.test(modelArg) || modelArg.endsWith('.bin') || existsSync(resolve(baseDir, modelArg));
}

/**
 * A path is used as is (relative to `baseDir`: the working directory, or a config file's folder);
 * otherwise a name like "base" means models/ggml-base.bin.
 */
export function resolveModelFile(modelArg: string, baseDir = process.cwd(), env: Env = process.env): string {
  return isModelPathArgument(modelArg, baseDir) ? resolve(baseDir, modelArg) : modelFileOfName(modelArg, env);
}
