// One catalogue of the API's refusals (docs/DESIGN.md "Layout"): src/api/api-refusals.ts names every
// answer src/api gives on its own account, and src/api/error-mapping.ts maps the lower layers' errors.
// An ApiError built anywhere else is a refusal outside the catalogue, where its status, code and
// message drift unseen: call API_REFUSALS instead, or add an entry there.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';
import ts from 'typescript';

import { sourceFiles } from '../helpers/source-imports.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The catalogue itself, and the mapping of other layers' errors (built from its tables). */
const ALLOWED = ['src/api/api-refusals.ts', 'src/api/error-mapping.ts'];

/** `path:line` of every `new ApiError(...)` in `text`; comments and strings are not code. */
function apiErrorsBuiltIn(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isNewExpression(node) && node.expression.getText() === 'ApiError') {
      found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

t.test('the check finds what it forbids, and only that', async (t) => {
  t.same(apiErrorsBuiltIn('x.ts', "const a = 1;\nthrow new ApiError(400, 'invalid_request', 'no');"), ['x.ts:2']);
  t.same(apiErrorsBuiltIn('x.ts', "done(\n  new ApiError(404, 'not_found', 'gone', {}),\n);"), ['x.ts:2'], 'inside a call');
  t.same(apiErrorsBuiltIn('x.ts', 'throw API_REFUSALS.missingKey();\nif (error instanceof ApiError) return;'), [], 'the catalogue and a type test');
  t.same(apiErrorsBuiltIn('x.ts', "// never new ApiError(400, ...) here\nconst text = 'new ApiError(';"), [], 'comments and strings');
  t.same(apiErrorsBuiltIn('x.ts', "throw new UploadFormError(400, 'InvalidArgument', 'no');"), [], 'another error type');
});

t.test('ApiErrors are built only in the catalogue and the error mapping', async (t) => {
  const files = sourceFiles(ROOT, 'src');
  t.ok(files.length > 100, `${files.length} files`);
  const found = files.filter((file) => !ALLOWED.includes(file)).flatMap((file) => apiErrorsBuiltIn(file, readFileSync(join(ROOT, file), 'utf8')));
  t.same(found, [], 'use an API_REFUSALS entry (src/api/api-refusals.ts), adding one if none fits');
});
