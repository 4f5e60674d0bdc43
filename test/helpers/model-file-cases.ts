// Scaffolding shared by the model-file validation tests (whisper models and VAD models): malformed
// variants written to a temporary folder, and the check that a reader refuses one with a typed error.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type tap from 'tap';

import { ModelFileError } from '../../src/models/model-file-error.js';

/** A folder for case files, removed at the end of the test file; `fileWith` writes one case. */
export async function caseFolder(t: Pick<typeof tap, 'teardown'>, prefix: string) {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  let fileNumber = 0;
  return {
    dir,
    async fileWith(bytes: Uint8Array): Promise<string> {
      const path = join(dir, `case-${fileNumber++}.bin`);
      await writeFile(path, bytes);
      return path;
    },
  };
}

/** A copy of `bytes` with one little-endian int32 replaced. */
export function withInt32(bytes: Buffer, offset: number, value: number): Buffer {
  const copy = Buffer.from(bytes);
  copy.writeInt32LE(value, offset);
  return copy;
}

/** Asserts that `read(path)` fails with a ModelFileError of `code` (and a message matching `message`). */
export async function expectModelFileError(
  t: Pick<typeof tap, 'type' | 'equal' | 'match'>,
  read: (path: string) => Promise<unknown>,
  path: string,
  code: string,
  message?: RegExp,
): Promise<void> {
  const error = await read(path).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.type(error, ModelFileError);
  t.equal((error as ModelFileError).code, code, (error as Error)?.message);
  if (message) t.match((error as Error).message, message);
}
