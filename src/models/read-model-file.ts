// Opening a model file for validation, with every failure turned into a ModelFileError: the caller's
// parser sees only a cursor, and an end of file inside it means the file is truncated.
import { type FileHandle, open, stat } from 'node:fs/promises';

import { EndOfFileError, FileCursor } from './file-cursor.js';
import { ModelFileError, type ModelFileErrorCode } from './model-file-error.js';

export type ModelFileFail = (code: ModelFileErrorCode, message: string, cause?: unknown) => ModelFileError;

export async function readModelFile<T>(path: string, parse: (cursor: FileCursor, fail: ModelFileFail) => Promise<T>): Promise<T> {
  const fail: ModelFileFail = (code, message, cause) => new ModelFileError(code, path, message, cause === undefined ? undefined : { cause });

  let handle: FileHandle;
  let fileSize: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw fail('model_not_found', 'not a regular file');
    fileSize = info.size;
    handle = await open(path, 'r');
  } catch (error) {
    if (error instanceof ModelFileError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw fail('model_not_found', 'no such model file', error);
    throw fail('model_unreadable', `cannot read the model file (${code ?? (error as Error).message})`, error);
  }

  try {
    return await parse(new FileCursor(handle, fileSize), fail);
  } catch (error) {
    if (error instanceof ModelFileError) throw error;
    if (error instanceof EndOfFileError) {
      throw fail('model_truncated', `truncated: the file (${fileSize} bytes) ends while reading ${error.what} at byte ${error.position}`);
    }
    throw fail('model_unreadable', `cannot read the model file (${(error as Error).message})`, error);
  } finally {
    await handle.close();
  }
}
