// What is in the models directory: the .bin files there, and what each one is (read from its header,
// so a renamed or generated file is still recognised) for `svc-stt models list`.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

import { readModelHeader } from '../models/model-header.js';
import { ModelFileError, readVadModelHeader } from '../models/vad-model-header.js';

export interface ModelDirectoryFile {
  /** File name, e.g. `ggml-base.bin`. */
  name: string;
  path: string;
  sizeBytes: number;
}

/** The .bin files in `dir`, by name; none when the directory does not exist yet. */
export async function modelDirectoryFiles(dir: string): Promise<ModelDirectoryFile[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const files: ModelDirectoryFile[] = [];
  for (const name of names.filter((n) => n.endsWith('.bin')).sort()) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info?.isFile()) files.push({ name, path, sizeBytes: info.size });
  }
  return files;
}

/** "whisper tiny, f16", "Silero VAD 6.2.1", or why the file is neither. */
export async function describeModelFile(path: string): Promise<string> {
  try {
    return `Silero VAD ${(await readVadModelHeader(path)).version}`;
  } catch (error) {
    if (!(error instanceof ModelFileError)) throw error;
  }
  try {
    const header = await readModelHeader(path);
    return `whisper ${header.arch}${header.multilingual ? '' : ' (English only)'}, ${header.weightType}`;
  } catch (error) {
    if (!(error instanceof ModelFileError)) throw error;
    return `not usable: ${error.message.slice(path.length + 2)}`;
  }
}

export function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(bytes < 10e6 ? 1 : 0)} MB`;
}
