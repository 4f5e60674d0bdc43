// The model a command was given (--model or SVC_MODEL), checked before anything loads it: a missing
// file is the first thing a new user meets, and the engine's own error cannot say how to get the file.
import { existsSync } from 'node:fs';

import { loadManifest } from '../models/manifest.js';
import { isModelPathArgument, resolveModelFile } from '../models/model-paths.js';
import { UsageError } from './usage-error.js';

/** --model's value, else SVC_MODEL's; a UsageError when neither is set. */
export function modelArgument(option: string | undefined, env: NodeJS.ProcessEnv = process.env): { value: string; from: string } {
  if (option !== undefined) return { value: option, from: '--model' };
  if (env.SVC_MODEL) return { value: env.SVC_MODEL, from: 'SVC_MODEL' };
  throw new UsageError('no model: pass --model PATH|NAME or set SVC_MODEL (`npx svc-stt models list` shows the models and which are downloaded)');
}

/** The model file an argument means; a UsageError saying how to get it when the file is not there. */
export async function existingModelFile(modelArg: string, from = '--model'): Promise<string> {
  const path = resolveModelFile(modelArg);
  if (existsSync(path)) return path;
  if (isModelPathArgument(modelArg)) throw new UsageError(`${from}: no model file ${path}`);
  const manifest = await loadManifest();
  if (manifest.models.some((entry) => entry.name === modelArg)) {
    throw new UsageError(
      `${from}: model '${modelArg}' is not downloaded (no file ${path}); get it with: npx svc-stt models download ${modelArg}` +
        ' (`npx svc-stt models list` shows what is downloaded; SVC_MODELS_DIR sets where models are)',
    );
  }
  throw new UsageError(
    `${from}: no model file ${path}, and '${modelArg}' is no model name that can be downloaded;` +
      ' `npx svc-stt models list` shows the names, and --model also takes a file path',
  );
}
