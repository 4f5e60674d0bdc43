// Issue 44.3: the domain's words are declared once, on the lowest floor (a name exported by a file of
// src/domain/ is exported by no other file of src/). The PCM sample rate was
// once written as 16000 in five places; a sixth copy that drifted would resample one path only. And
// a key's words (plans, entitlements, the record) lived in store/, so every layer reached into the
// store to name a plan. Numeric literals are read from the code (comments and strings are not code).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';
import ts from 'typescript';

import { sourceFiles } from '../helpers/source-imports.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SAMPLE_RATE_OWNER = 'src/domain/audio-format.ts';

/** `path:line` of every numeric literal 16000 in `text`. */
function sampleRateLiteralsIn(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isNumericLiteral(node) && Number(node.text) === 16_000) found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The names a file exports by declaration (not re-exports). */
function declaredExports(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const names: string[] = [];
  for (const statement of source.statements) {
    const exported = ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported) continue;
    if (ts.isVariableStatement(statement)) names.push(...statement.declarationList.declarations.map((d) => d.name.getText()));
    else if ('name' in statement && statement.name) names.push((statement.name as ts.Identifier).text);
  }
  return names;
}

t.test('the checks find what they look for, and only that', async (t) => {
  t.same(sampleRateLiteralsIn('x.ts', 'const a = 1;\nconst rate = 16_000;'), ['x.ts:2']);
  t.same(sampleRateLiteralsIn('x.ts', 'const rate = 16000; // 16000'), ['x.ts:1'], 'either spelling, once');
  t.same(sampleRateLiteralsIn('x.ts', "// 16000\nconst s = 'rate 16000';\nconst n = 160_000;"), [], 'comments, strings, other numbers');
  t.same(declaredExports('x.ts', 'export type Plan = string;\nexport const A = 1, B = 2;\nexport { C } from "./c.js";\nconst D = 1;'), ['Plan', 'A', 'B']);
});

t.test('the sample rate is declared once, in domain/', async (t) => {
  const files = sourceFiles(ROOT, 'src');
  t.same(sampleRateLiteralsIn(SAMPLE_RATE_OWNER, readFileSync(join(ROOT, SAMPLE_RATE_OWNER), 'utf8')).length, 1, 'where it is said to be');
  const found = files.filter((file) => file !== SAMPLE_RATE_OWNER).flatMap((file) => sampleRateLiteralsIn(file, readFileSync(join(ROOT, file), 'utf8')));
  t.same(found, [], 'import SAMPLE_RATE from src/domain/audio-format.ts');
});

t.test("the domain's words are declared in domain/ only", async (t) => {
  const domainFiles = sourceFiles(ROOT, 'src/domain');
  const words = domainFiles.flatMap((file) => declaredExports(file, readFileSync(join(ROOT, file), 'utf8')));
  for (const word of ['ApiKeyRecord', 'Entitlement', 'Plan', 'JOB_MODEL', 'UsageRoute', 'SAMPLE_RATE']) t.ok(words.includes(word), `${word} is one`);
  const redeclared = sourceFiles(ROOT, 'src')
    .filter((file) => !file.startsWith('src/domain/'))
    .flatMap((file) =>
      declaredExports(file, readFileSync(join(ROOT, file), 'utf8'))
        .filter((name) => words.includes(name))
        .map((name) => `${file}: ${name}`),
    );
  t.same(redeclared, [], 'declared again outside domain/');
});
