// The documentation a person reads stays true where that is cheap to check. The README's
// "Architecture" names every folder of src/, lowest layer first, and names nothing that is not there;
// docs/DESIGN.md "Layout" has a line for every folder; every relative link between the documents
// reaches a file and, for a `#fragment`, a heading of it; the docs run the CLI one way (`npx svc-stt`,
// which works after a local install, where a bare `svc-stt` is not on the PATH); and the README's
// quick start gives the test command that CI (.ci/run) runs.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

import { LAYER_RANK } from '../helpers/layer-ranks.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The documents a person reads: the top-level Markdown files, docs/ and the benchmark results. */
const DOCUMENTS = [
  ...readdirSync(ROOT).filter((name) => name.endsWith('.md')),
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  'bench/RESULTS.md',
].sort();

/** The lines of `markdown` outside fenced code blocks, and those inside them, apart. */
function splitFences(markdown: string): { prose: string[]; code: string[] } {
  const prose: string[] = [];
  const code: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    (fenced ? code : prose).push(line);
  }
  return { prose, code };
}

/** The text of the `## heading` section of `markdown`, up to the next heading of level 2 or higher. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`no section "## ${heading}"`);
  const end = markdown.slice(start + 1).search(/\n#{1,2} /);
  return end === -1 ? markdown.slice(start) : markdown.slice(start, start + 1 + end);
}

/** GitHub's anchors for the headings of `markdown` (lower case, punctuation dropped, spaces to hyphens). */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of splitFences(markdown).prose) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** `document: why` for each relative link of `document` whose file or heading is not there. */
function brokenLinks(document: string, markdown: string): string[] {
  const broken: string[] = [];
  for (const line of splitFences(markdown).prose) {
    for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue;
      const [path, fragment] = target.split('#', 2);
      const file = path === '' ? document : normalize(join(dirname(document), path));
      if (!existsSync(join(ROOT, file))) {
        broken.push(`${document}: ${target} (no ${file})`);
      } else if (fragment !== undefined && file.endsWith('.md') && !anchorsOf(read(file)).has(fragment)) {
        broken.push(`${document}: ${target} (${file} has no heading #${fragment})`);
      }
    }
  }
  return broken;
}

const srcFolders = readdirSync(join(ROOT, 'src')).filter((name) => statSync(join(ROOT, 'src', name)).isDirectory());
const architecture = section(read('README.md'), 'Architecture');

t.test('the README\'s "Architecture" names every folder of src/, lowest layer first', async (t) => {
  t.ok(srcFolders.length >= 17, `${srcFolders.length} folders under src/`);
  const named = [...architecture.matchAll(/`src\/([a-z-]+)\/`/g)].map((match) => match[1]);
  t.same(
    srcFolders.filter((folder) => !named.includes(folder)),
    [],
    'folders of src/ the Architecture section does not name: give each a row',
  );
  const rows = [...architecture.matchAll(/^\| `src\/([a-z-]+)\/` \|/gm)].map((match) => match[1]);
  t.same(
    rows,
    Object.keys(LAYER_RANK).sort((a, b) => LAYER_RANK[a] - LAYER_RANK[b]),
    'one row a folder, in the layer order of test/helpers/layer-ranks.ts',
  );
});

t.test('every path the README\'s "Architecture" names is there', async (t) => {
  const paths = [...new Set([...architecture.matchAll(/`((?:src|native|test)\/[\w./-]*)`/g)].map((match) => match[1]))];
  t.ok(paths.length > 20, `${paths.length} paths named`);
  t.same(
    paths.filter((path) => !existsSync(join(ROOT, path))),
    [],
    'named in the Architecture section but not in the repository',
  );
  t.match(architecture, /SVC_KEPT_STATES_IDLE_MS/, 'the kept decoding states and when they are freed');
});

/** The design document's section on the folders, written as a citation (design-citations.test.ts checks it). */
const [, DESIGN_PATH, LAYOUT_HEADING] = /^(\S+) "(.+)"$/.exec('docs/DESIGN.md "Layout"') ?? [];

t.test('docs/DESIGN.md "Layout" has a line for every folder of src/', async (t) => {
  const layout = section(read(DESIGN_PATH), LAYOUT_HEADING);
  t.same(
    srcFolders.filter((folder) => !new RegExp(`\`(?:src/)?${folder}/\``).test(layout)),
    [],
    'folders of src/ that docs/DESIGN.md "Layout" does not describe',
  );
});

t.test('the checks themselves find what they look for', async (t) => {
  t.same([...anchorsOf('# A\n## Long recordings: `/v1/jobs`\n```\n# not a heading\n```\n## A')], ['a', 'long-recordings-v1jobs', 'a-1']);
  t.same(brokenLinks('docs/API.md', '[x](../README.md#quick-start) [y](#no-such-heading) [z](NOPE.md) [w](https://e.example)'), [
    'docs/API.md: #no-such-heading (docs/API.md has no heading #no-such-heading)',
    'docs/API.md: NOPE.md (no docs/NOPE.md)',
  ]);
  t.throws(() => section('# T\n## Other\n', 'Architecture'));
});

t.test('every relative link between the documents reaches its file and heading', async (t) => {
  t.ok(DOCUMENTS.includes('README.md') && DOCUMENTS.includes('docs/API.md') && DOCUMENTS.includes('docs/OPERATIONS.md'), DOCUMENTS.join(', '));
  const broken = DOCUMENTS.flatMap((document) => brokenLinks(document, read(document)));
  t.same(broken, [], 'fix the link or the heading it points at');
});

t.test('the documents run the CLI as `npx svc-stt`', async (t) => {
  const bare = DOCUMENTS.flatMap((document) => {
    const { prose, code } = splitFences(read(document));
    return [
      ...code.filter((line) => /^\s*svc-stt [a-z]/.test(line)),
      ...prose.flatMap((line) => [...line.matchAll(/`svc-stt [a-z][^`]*`/g)].map((match) => match[0])),
    ].map((found) => `${document}: ${found}`);
  });
  t.same(bare, [], 'write `npx svc-stt ...`: a bare svc-stt is "command not found" after a local install');
});

t.test("the README's quick start gives the test command CI runs", async (t) => {
  const quickStart = section(read('README.md'), 'Quick start');
  const commands = /```sh\n([\s\S]*?)```/.exec(quickStart)?.[1].trim().split('\n') ?? [];
  t.equal(commands.length, 2, 'two commands: run the service, pass the tests');
  const ci = read('.ci/run')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  t.equal(commands[1], ci.at(-1), ".ci/run ends with the README's test command");
  t.match(commands[0], /npx svc-stt serve/);
});
