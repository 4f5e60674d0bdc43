// Where the service's VAD model is: the file the install step converts into the package's own models/
// directory (src/models/silero-vad-install.ts), unless SVC_VAD_MODEL names another. The one place
// that decides it, for the service configuration and the CLI.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { SILERO_VAD_RELEASES } from './silero-vad-install.js';

export const VAD_MODEL_ENV = 'SVC_VAD_MODEL';

/** The release the service uses by default (the installer's first). */
export const DEFAULT_VAD_RELEASE = SILERO_VAD_RELEASES[0];

// src/models/ or dist/models/: the package root is two levels up either way.
const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The installed default, whatever the environment says. */
export function defaultVadModelPath(): string {
  return join(packageRoot, 'models', DEFAULT_VAD_RELEASE.file);
}

/** $SVC_VAD_MODEL (resolved against the working directory) when set and non-empty, else the installed default. */
export function vadModelPath(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env[VAD_MODEL_ENV];
  return configured ? resolve(configured) : defaultVadModelPath();
}
