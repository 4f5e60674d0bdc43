// Generated whisper models for tests and benchmarks, cached in test/.cache/models (git-ignored).
// Generation writes a temporary file and renames it, so test processes racing for the same model
// each see either no file or a whole one; the loser's rename just replaces identical bytes.
import { access } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { makeTestModel, type TestArchitecture } from '../../src/models/make-test-model.js';
import { readModelHeader } from '../../src/models/model-header.js';

export const TEST_MODELS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '.cache', 'models');

const ready = new Map<string, Promise<string>>();

/** Path of the generated model for (arch, seed), generating it on first use. */
export function testModelPath(arch: TestArchitecture, seed = 1): Promise<string> {
  const path = join(TEST_MODELS_DIR, `ggml-${arch}-seed${seed}.bin`);
  let promise = ready.get(path);
  if (!promise) {
    promise = ensureModel(path, arch, seed);
    // A failure is not cached: the next caller tries again.
    promise.catch(() => ready.delete(path));
    ready.set(path, promise);
  }
  return promise;
}

async function ensureModel(path: string, arch: TestArchitecture, seed: number): Promise<string> {
  if (await exists(path)) {
    try {
      await readModelHeader(path);
      return path;
    } catch {
      // Left by an older generator or damaged: make it again (the rename replaces it atomically).
    }
  }
  await makeTestModel({ arch, seed, out: path });
  return path;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
