// The import graph of src/ (docs/DESIGN.md "Layout"): no circle between files, and no file that no
// entry point reaches. A circle means two modules cannot be read, tested or moved apart; the shape
// they share gets a file of its own. A file nothing imports is dead code or a forgotten wire.
import { fileURLToPath } from 'node:url';

import t from 'tap';

import { readImports, sourceFiles } from '../helpers/source-imports.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Where the process starts: the package entry, the CLI (bin/svc-stt.js loads its compiled form;
 * src/cli/run.ts runs it from the sources), and the pool's worker file, which Piscina loads by path
 * (src/engine/engine.ts names it).
 */
const ENTRY_POINTS = ['src/index.ts', 'src/cli/main.ts', 'src/cli/run.ts', 'src/engine/pool-worker.ts'];

type Graph = ReadonlyMap<string, readonly string[]>;

/** Each file's imports of other files under src/ (`.js` specifiers name the `.ts` source). */
function importGraph(files: readonly string[]): Graph {
  const known = new Set(files);
  return new Map(
    files.map((file) => [
      file,
      readImports(ROOT, file)
        .map((imp) => imp.target?.replace(/\.js$/, '.ts'))
        .filter((target): target is string => target !== undefined && known.has(target)),
    ]),
  );
}

/** The strongly connected components of more than one file, or a file importing itself (Tarjan). */
function circles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

/** The files no entry point reaches through imports. */
function unreachable(graph: Graph, entries: readonly string[]): string[] {
  const seen = new Set<string>();
  const pending = [...entries];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    pending.push(...(graph.get(file) ?? []));
  }
  return [...graph.keys()].filter((file) => !seen.has(file));
}

const files = sourceFiles(ROOT, 'src');
const graph = importGraph(files);

t.test('the checks fail on what they forbid', async (t) => {
  const sample: Graph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
    ['d', ['d']],
    ['e', ['a']],
    ['f', []],
  ]);
  t.same(circles(sample), [['a', 'b', 'c'], ['d']], 'a three-file circle and a self-import');
  t.same(unreachable(sample, ['e']), ['d', 'f'], 'files the entry does not reach');
  t.same(
    circles(
      new Map([
        ['a', ['b']],
        ['b', []],
      ]),
    ),
    [],
    'a chain is no circle',
  );
});

t.test('the graph is the source tree', async (t) => {
  for (const entry of ENTRY_POINTS) t.ok(graph.has(entry), `${entry} exists`);
  t.ok(graph.get('src/api/error-mapping.ts')?.includes('src/api/api-error.ts'), 'a known import is an edge');
});

t.test('no import circle between files of src/', async (t) => {
  t.same(circles(graph), [], 'give the shape both files need a file of its own');
});

t.test('every file of src/ is reached from an entry point', async (t) => {
  t.same(unreachable(graph, ENTRY_POINTS), [], 'wire the file in, or delete it');
});
