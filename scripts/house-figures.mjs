// The house's shape in figures, for a closing note or a review (`node scripts/house-figures.mjs`):
// source files, the largest file, the longest functions, and the import circles between files of
// src/ (test/architecture/import-graph.test.ts keeps that at none). Reads the sources with
// TypeScript's own parser; prints a table, then one JSON line.
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

import ts from 'typescript';

const root = join(fileURLToPath(import.meta.url), '..', '..');
const files = readdirSync(join(root, 'src'), { recursive: true })
  .filter((name) => name.endsWith('.ts'))
  .map((name) => posix.join('src', name.split('\\').join('/')))
  .sort();

let largest = { file: '', lines: 0 };
const functions = [];
const imports = new Map();
for (const file of files) {
  const text = readFileSync(join(root, file), 'utf8');
  const lines = text.split('\n').length;
  if (lines > largest.lines) largest = { file, lines };
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      const from = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const to = source.getLineAndCharacterOfPosition(node.end).line;
      const name = node.name?.getText() ?? (ts.isConstructorDeclaration(node) ? 'constructor' : '(anonymous)');
      functions.push({ where: `${file}:${from + 1} ${name}`, lines: to - from + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  const targets = ts
    .preProcessFile(text, true, true)
    .importedFiles.map((imported) => imported.fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => posix.normalize(posix.join(posix.dirname(file), specifier)).replace(/\.js$/, '.ts'));
  imports.set(file, targets);
}
functions.sort((a, b) => b.lines - a.lines);

// Files that reach themselves through their imports (a circle passes through each of them).
const reaches = (from, goal) => {
  const seen = new Set();
  const pending = [...(imports.get(from) ?? [])];
  while (pending.length > 0) {
    const next = pending.pop();
    if (next === goal) return true;
    if (seen.has(next)) continue;
    seen.add(next);
    pending.push(...(imports.get(next) ?? []));
  }
  return false;
};
const inCircles = files.filter((file) => reaches(file, file));

console.log(`source files        ${files.length}`);
console.log(`largest file        ${largest.file} (${largest.lines} lines)`);
for (const f of functions.slice(0, 3)) console.log(`long function       ${f.where} (${f.lines} lines)`);
console.log(`files in circles    ${inCircles.length}`);
console.log(
  JSON.stringify({
    bench: 'house',
    files: files.length,
    largest_file: largest.file,
    largest_file_lines: largest.lines,
    longest_function: functions[0].where,
    longest_function_lines: functions[0].lines,
    files_in_circles: inCircles.length,
  }),
);
