// HTTP statuses belong to src/api (docs/DESIGN.md "Layout"): below it, each layer throws errors that
// say what went wrong, and src/api decides how the contract (or S3's form protocol) answers them. A
// status written below src/api is a second, silent catalogue that drifts from the one in
// src/api/error-mapping.ts. Layers above src/api (service, cli) may speak HTTP; the realtime
// transports are exempt too: they are the realtime listener's own HTTP edge (they refuse a plain HTTP
// request that is not a WebSocket upgrade); so is the loopback audio source, which answers ffmpeg's
// Range requests for sealed audio on 127.0.0.1 and never a client of the contract.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';
import ts from 'typescript';

import { LAYER_RANK } from '../helpers/layer-ranks.js';
import { sourceFiles } from '../helpers/source-imports.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const EXEMPT = ['src/realtime/transport/', 'src/store/sealed-audio-server.ts'];
/** Files in a layer below src/api (the package entry, directly in src/, is above every layer). */
const belowApi = (file: string) => (LAYER_RANK[file.split('/')[1]] ?? Number.POSITIVE_INFINITY) < LAYER_RANK.api;
const STATUS_NAMES = /^(status|statusCode|httpStatus)$/;
const REPLY_METHODS = /^(code|status|writeHead|writeStatus)$/;

const isStatus = (node: ts.Node): node is ts.NumericLiteral =>
  ts.isNumericLiteral(node) && Number(node.text) >= 100 && Number(node.text) <= 599 && /^\d{3}$/.test(node.text);

/** Where `text` gives an HTTP status: an error built with one, a `status:` field, or a reply's code. */
function statusesIn(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const report = (node: ts.Node, how: string) =>
    found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${how} ${node.getText()}`);
  const visit = (node: ts.Node): void => {
    if (isStatus(node)) {
      const parent = node.parent;
      if (ts.isNewExpression(parent) && /Error$/.test(parent.expression.getText())) report(node, 'an error built with status');
      else if (ts.isPropertyAssignment(parent) && STATUS_NAMES.test(parent.name.getText())) report(node, 'a status field');
      else if (ts.isCallExpression(parent) && ts.isPropertyAccessExpression(parent.expression) && REPLY_METHODS.test(parent.expression.name.text))
        report(node, 'a reply status');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

t.test('the check finds what it forbids, and only that', async (t) => {
  t.match(statusesIn('x.ts', "throw new UploadFormError(403, 'AccessDenied', 'no');"), [/x\.ts:1 an error built with status 403/]);
  t.match(statusesIn('x.ts', 'const answer = {\n  status: 503,\n};'), [/x\.ts:2 a status field 503/]);
  t.match(statusesIn('x.ts', 'reply.code(401).send();'), [/a reply status 401/]);
  t.same(statusesIn('x.ts', '// answers 404 from then on\nconst header = { nTextCtx: 448 };'), [], 'comments and other numbers');
  t.same(statusesIn('x.ts', 'if (response.status === 416) retry();'), [], 'reading a status another server answered');
  t.same(statusesIn('x.ts', "throw new QueueFull('full', 503_000);"), [], 'not a status literal');
});

t.test('no HTTP status is written below src/api', async (t) => {
  const below = sourceFiles(ROOT, 'src').filter((file) => belowApi(file) && !EXEMPT.some((prefix) => file.startsWith(prefix)));
  t.ok(below.length > 100, `${below.length} files`);
  const found = below.flatMap((file) => statusesIn(file, readFileSync(join(ROOT, file), 'utf8')));
  t.same(found, [], 'throw an error that says what is wrong and map it in src/api');
});
