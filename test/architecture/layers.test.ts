// Layering (docs/DESIGN.md "Layout"), lowest first: native < domain < models < engine < audio < store <
// config < billing < pipeline < contract < jobs < webhooks < application < realtime < api < console <
// service < cli (test/helpers/layer-ranks.ts). An import stays in its layer or goes down, never up; and HTTP
// stays at the edge: no layer below src/api imports it (each layer throws its own typed errors, which
// only src/api/error-mapping.ts turns into statuses). Type-only imports count: a type from a higher
// layer ties the lower one to it all the same.
import { fileURLToPath } from 'node:url';

import t from 'tap';

import { LAYER_RANK } from '../helpers/layer-ranks.js';
import { importsOf, readImports, sourceFiles, type SourceImport } from '../helpers/source-imports.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const API_RANK = LAYER_RANK.api;
/** The package entry: it re-exports the library's surface from whichever layer holds it. */
const PACKAGE_ENTRY = 'src/index.ts';

/** The folder under src/ (`jobs`), or the file itself for files directly in src/ (`index.ts`). */
function layerOf(path: string): string {
  return path.split('/')[1];
}

/** Why `imp` breaks the layering, or null. Only imports that resolve inside src/ are layered. */
function violationOf(imp: SourceImport): string | null {
  if (imp.target === null || !imp.target.startsWith('src/') || imp.file === PACKAGE_ENTRY) return null;
  const from = LAYER_RANK[layerOf(imp.file)];
  // A file directly in src/ (the package entry) is above every layer.
  const to = LAYER_RANK[layerOf(imp.target)] ?? Number.POSITIVE_INFINITY;
  if (to === API_RANK && from < API_RANK) return `${imp.file} imports ${imp.target}: only src/api may know HTTP`;
  if (to > from) return `${imp.file} imports ${imp.target}: up from ${layerOf(imp.file)} to ${layerOf(imp.target)}`;
  return null;
}

const files = sourceFiles(ROOT, 'src');
const imports = files.flatMap((file) => readImports(ROOT, file));

t.test('the scan sees the source tree and its imports', async (t) => {
  t.ok(files.length > 100, `${files.length} files`);
  t.ok(imports.length > 300, `${imports.length} imports`);
  t.ok(
    imports.some((imp) => imp.file === 'src/api/error-mapping.ts' && imp.target === 'src/api/api-error.js'),
    'a known import is found',
  );
  const unranked = [...new Set(files.filter((file) => file !== PACKAGE_ENTRY).map(layerOf))].filter((layer) => !(layer in LAYER_RANK));
  t.same(unranked, [], 'every folder under src/ has a place in the layer order (add a new one to LAYER_RANK and docs/DESIGN.md "Layout")');
});

t.test('the check itself fails on what it forbids', async (t) => {
  const first = (file: string, text: string) => violationOf(importsOf(file, text)[0]);
  t.match(first('src/store/x.ts', "import { y } from '../pipeline/y.js';"), /up from store to pipeline/);
  t.match(first('src/pipeline/x.ts', "import type { ApiError } from '../api/api-error.js';"), /only src\/api may know HTTP/);
  t.match(first('src/jobs/x.ts', "export {\n  y,\n} from '../webhooks/y.js';"), /up from jobs to webhooks/);
  t.match(first('src/engine/x.ts', "const y = await import('../config/y.js');"), /up from engine to config/);
  t.match(first('src/store/sqlite/x.ts', "import '../../audio/../jobs/y.js';"), /up from store to jobs/);
  t.match(first('src/cli/x.ts', "import { Engine } from '../index.js';"), /up from cli to index\.js/);
  t.match(first('src/webhooks/x.ts', "import { y } from '../realtime/y.js';"), /up from webhooks to realtime/, 'neighbours are ordered too');
  t.equal(first('src/realtime/x.ts', "import { y } from '../webhooks/y.js';"), null, 'down to the neighbour below');
  t.equal(first('src/jobs/x.ts', "import { y } from './y.js';"), null, 'same layer');
  t.equal(first('src/service/x.ts', "import { y } from '../api/build-app.js';"), null, 'down into api');
  t.equal(first('src/index.ts', "export { y } from './cli/y.js';"), null, 'the package entry may import anything');
  t.equal(first('src/pipeline/x.ts', "import Fastify from 'fastify';"), null, 'packages are not layers');
  t.equal(first('src/pipeline/x.ts', "// import { y } from '../api/y.js';\nimport { z } from './z.js';"), null, 'comments are not imports');
});

t.test('no layer below src/api imports it', async (t) => {
  const leaks = imports.filter((imp) => /only src\/api/.test(violationOf(imp) ?? '')).map(violationOf);
  t.same(leaks, [], 'throw a typed error of your layer and map it in src/api/error-mapping.ts');
});

t.test('imports go down the layer order, never up', async (t) => {
  const upward = imports.filter((imp) => violationOf(imp) !== null).map(violationOf);
  t.same(upward, [], 'move the shared piece down to the lowest layer that needs it');
});
