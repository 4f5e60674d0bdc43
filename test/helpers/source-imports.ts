// Every module a source file names (import, import type, export ... from, import(), bare import), read
// by TypeScript's own pre-processor so comments and strings that merely look like imports are not counted.
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, sep } from 'node:path';

import ts from 'typescript';

export interface SourceImport {
  /** The importing file, relative to the repository root with `/` separators (`src/jobs/job-failure.ts`). */
  file: string;
  /** The specifier as written (`../api/api-error.js`). */
  specifier: string;
  /** For a relative specifier, the target relative to the repository root (`src/api/api-error.js`); else null. */
  target: string | null;
}

const toPosix = (path: string) => path.split(sep).join('/');

/** The `.ts` files under `dir` (relative to `root`), in a stable order. */
export function sourceFiles(root: string, dir: string): string[] {
  return (readdirSync(join(root, dir), { recursive: true }) as string[])
    .filter((name) => name.endsWith('.ts'))
    .map((name) => toPosix(join(dir, name)))
    .sort();
}

export function importsOf(file: string, text: string): SourceImport[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles.map(({ fileName: specifier }) => ({
    file,
    specifier,
    target: specifier.startsWith('.') ? posix.normalize(posix.join(posix.dirname(file), specifier)) : null,
  }));
}

export function readImports(root: string, file: string): SourceImport[] {
  return importsOf(file, readFileSync(join(root, file), 'utf8'));
}
