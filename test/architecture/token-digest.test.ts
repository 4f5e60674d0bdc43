// One digest of a secret token (src/store/token-digest.ts): the stores keep SHA-256 of an API key's
// secret, a realtime client secret, a console invite, session or pending sign-in token and a recovery
// code, and the databases already hold those bytes. Four private copies of that one line once lived
// beside each format; a fifth written with another encoding (hex, base64, no 'utf8') would store
// digests that no lookup finds. Every SHA-256 in src/store is of such a token, so none but
// storedTokenDigest may call createHash('sha256') there. (Outside src/store, SHA-256 digests an
// upload, a model file or a request body: not secrets, and not checked here.)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';
import ts from 'typescript';

import { sourceFiles } from '../helpers/source-imports.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OWNER = 'src/store/token-digest.ts';

/** `path:line` of every `createHash('sha256')` (or `crypto.createHash('sha256')`) in `text`; comments and strings are not code. */
function sha256HashesIn(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = ts.isPropertyAccessExpression(node.expression) ? node.expression.name.text : node.expression.getText();
      const [algorithm] = node.arguments;
      if (callee === 'createHash' && algorithm && ts.isStringLiteralLike(algorithm) && algorithm.text.toLowerCase() === 'sha256') {
        found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

t.test('the check finds what it forbids, and only that', async (t) => {
  t.same(sha256HashesIn('x.ts', "const a = 1;\nreturn createHash('sha256').update(token, 'utf8').digest();"), ['x.ts:2']);
  t.same(sha256HashesIn('x.ts', 'const hash = crypto.createHash("SHA256");'), ['x.ts:1'], 'through the module, either case');
  t.same(sha256HashesIn('x.ts', "const key = hkdfSync('sha256', master, salt, info, 32);"), [], 'another use of the algorithm');
  t.same(sha256HashesIn('x.ts', "createHmac('sha256', key).update(body).digest('hex');"), [], 'a MAC, not a digest');
  t.same(sha256HashesIn('x.ts', "// createHash('sha256') of the token\nconst text = \"createHash('sha256')\";"), [], 'comments and strings');
});

t.test("a secret token's digest is computed only by storedTokenDigest", async (t) => {
  const files = sourceFiles(ROOT, 'src/store');
  t.ok(files.length > 40, `${files.length} files`);
  t.equal(sha256HashesIn(OWNER, readFileSync(join(ROOT, OWNER), 'utf8')).length, 1, 'the one digest is where it is said to be');
  const found = files.filter((file) => file !== OWNER).flatMap((file) => sha256HashesIn(file, readFileSync(join(ROOT, file), 'utf8')));
  t.same(found, [], 'call storedTokenDigest (src/store/token-digest.ts): the stored bytes must stay the ones the databases hold');
});
