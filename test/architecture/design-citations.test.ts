// Citations of the design document. Code says why it is as it is by pointing into docs/DESIGN.md:
// `docs/DESIGN.md decision N`, `docs/DESIGN.md lever N` or `docs/DESIGN.md "Heading"`. Each must name
// a decision, lever or heading the document has, so renaming or renumbering one there breaks here
// until the code follows. A citation of a design document anywhere else (a bare DESIGN.md, a copy
// outside the repository, `DESIGN:`) fails too: the repository's own document is the one that is kept
// true. This file is not scanned itself: its sub-tests write made-up citations on purpose.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOC_PATH = 'docs/DESIGN.md';
const SCANNED_DIRS = ['src', 'test', 'bench', 'native', 'scripts'];
const SELF = 'test/architecture/design-citations.test.ts';
const TEXT_FILE = /\.(?:[cm]?[jt]s|cc|cpp|c|h|hpp|sh|py|md|txt|json|ya?ml)$/;
/** Build output, dependencies and caches (dot folders such as test/.cache) hold nothing we wrote. */
const SKIPPED_DIRS = new Set(['node_modules', 'build', 'dist']);

interface DesignAnchors {
  headings: Set<string>;
  decisions: Set<number>;
  levers: Set<number>;
}

/** Headings of the document (outside fenced code), and the numbers of its decisions and levers. */
function anchorsOf(markdown: string): DesignAnchors & { numbered: string[] } {
  const anchors = { headings: new Set<string>(), decisions: new Set<number>(), levers: new Set<number>(), numbered: [] as string[] };
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1];
    anchors.headings.add(text);
    const numbered = /^(Decision|Lever) (\d+):/.exec(text);
    if (!numbered) continue;
    anchors.numbered.push(`${numbered[1]} ${numbered[2]}`);
    (numbered[1] === 'Decision' ? anchors.decisions : anchors.levers).add(Number(numbered[2]));
  }
  return anchors;
}

/** A comment continuation line without its marker (`//`, ` * `, `#`), for citations that wrap. */
function withoutCommentMarker(line: string): string {
  return line.replace(/^\s*(?:\/\/+|\/?\*+\/?|#+)?\s*/, '');
}

const CITED = /^\s*[,:]?\s*(?:decision (\d+)|lever (\d+)|"([^"]+)")/;
const OCCURRENCE = /\bDESIGN\b/g;

/**
 * What is wrong with the design citations in one file's text: one `path:line: why` per bad citation.
 * Every occurrence of the word DESIGN must start `docs/DESIGN.md` followed by what it cites; a
 * citation may wrap onto the next comment line.
 */
function citationProblems(file: string, text: string, anchors: DesignAnchors): string[] {
  const lines = text.split('\n');
  const problems: string[] = [];
  lines.forEach((line, index) => {
    const where = `${file}:${index + 1}`;
    for (const match of line.matchAll(OCCURRENCE)) {
      const at = match.index;
      const prefixed = line.slice(Math.max(0, at - 5), at) === 'docs/' && !/[\w./-]/.test(line[at - 6] ?? '');
      if (!prefixed || !line.startsWith('DESIGN.md', at)) {
        const quoted = line.slice(Math.max(0, at - 20), at + 30).trim();
        problems.push(`${where}: "${quoted}" cites a design document other than ${DOC_PATH}: cite ${DOC_PATH} decision N, lever N or "Heading"`);
        continue;
      }
      const rest = `${line.slice(at + 'DESIGN.md'.length)} ${withoutCommentMarker(lines[index + 1] ?? '')}`.replace(/\s+/g, ' ');
      const cited = CITED.exec(rest);
      if (!cited) {
        problems.push(`${where}: ${DOC_PATH} is cited without a decision N, lever N or "Heading"`);
      } else if (cited[1] !== undefined && !anchors.decisions.has(Number(cited[1]))) {
        problems.push(`${where}: ${DOC_PATH} has no decision ${cited[1]} (it has ${[...anchors.decisions].join(', ')})`);
      } else if (cited[2] !== undefined && !anchors.levers.has(Number(cited[2]))) {
        problems.push(`${where}: ${DOC_PATH} has no lever ${cited[2]} (it has ${[...anchors.levers].join(', ')})`);
      } else if (cited[3] !== undefined && !anchors.headings.has(cited[3])) {
        problems.push(`${where}: ${DOC_PATH} has no heading "${cited[3]}"`);
      }
    }
  });
  return problems;
}

/** The text files under `dir` (relative to the repository root, `/`-separated), in a stable order. */
function filesUnder(dir: string): string[] {
  const found: string[] = [];
  const walk = (relative: string) => {
    for (const entry of readdirSync(join(ROOT, relative), { withFileTypes: true })) {
      const path = `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.') && !SKIPPED_DIRS.has(entry.name)) walk(path);
      } else if (entry.isFile() && TEXT_FILE.test(entry.name)) {
        found.push(path);
      }
    }
  };
  walk(dir);
  return found.sort();
}

const docExists = existsSync(join(ROOT, ...DOC_PATH.split('/')));
const anchors = anchorsOf(docExists ? readFileSync(join(ROOT, ...DOC_PATH.split('/')), 'utf8') : '');
const files = SCANNED_DIRS.flatMap(filesUnder).filter((file) => file !== SELF);
const texts = new Map(files.map((file) => [file, readFileSync(join(ROOT, ...file.split('/')), 'utf8')]));

t.test('the design document is in the repository, each decision and lever numbered once', async (t) => {
  t.ok(docExists, `${DOC_PATH} exists`);
  t.ok(anchors.decisions.size >= 9, `${anchors.decisions.size} decisions`);
  t.ok(anchors.levers.size >= 1, `${anchors.levers.size} levers`);
  t.ok(anchors.headings.has('Layout'), 'a known heading is found');
  const repeated = anchors.numbered.filter((name, i) => anchors.numbered.indexOf(name) !== i);
  t.same(repeated, [], 'a citation of a number must name one place');
});

t.test('the scan sees the files that cite the document', async (t) => {
  t.ok(files.length > 300, `${files.length} files`);
  t.ok(
    files.every((file) => !file.split('/').includes('node_modules')),
    'no dependencies scanned',
  );
  t.ok(texts.get('native/context-free-decoder.h')?.includes(`${DOC_PATH} lever 3`), 'a known citation is found');
  const citing = [...texts.values()].filter((text) => /\bDESIGN\b/.test(text)).length;
  t.ok(citing >= 20, `${citing} files cite it`);
});

t.test('the check itself fails on what it forbids', async (t) => {
  const doc = anchorsOf(
    [
      '# Design',
      '## Layout',
      '## Decisions',
      '### Decision 1: Audio length',
      '## Speed levers',
      '### Lever 3: Encode once',
      '```',
      '# Not a heading',
      '```',
    ].join('\n'),
  );
  t.same([...doc.decisions], [1]);
  t.same([...doc.levers], [3]);
  t.notOk(doc.headings.has('Not a heading'), 'a line in a code block is not a heading');
  const cite = DOC_PATH;
  const check = (text: string) => citationProblems('src/x.ts', text, doc);
  const refused = (text: string, why: RegExp) => {
    const problems = check(text);
    t.equal(problems.length, 1, `one problem in ${JSON.stringify(text)}`);
    t.match(problems[0] ?? '', why);
  };
  // Made-up citations: the message names the file and line.
  refused(`// see ${cite} decision 99`, /^src\/x\.ts:1: .*has no decision 99/);
  refused(`// see ${cite} lever 7`, /^src\/x\.ts:1: .*has no lever 7/);
  refused(`// intro\n// (${cite} "No such heading")`, /^src\/x\.ts:2: .*has no heading "No such heading"/);
  refused(`// see ${cite} for why`, /cited without a decision N, lever N or "Heading"/);
  // Citations of something other than the repository's document.
  refused(`// (DESIGN.md decision 1)`, /^src\/x\.ts:1: .*cites a design document other than docs\/DESIGN\.md/);
  refused(`// (../shared/DESIGN.md "Layout")`, /other than/);
  refused(`// (shared/${cite} "Layout")`, /other than/);
  refused(`// (DESIGN: deleted when the job ends)`, /other than/);
  // What it accepts.
  t.same(check(`// (${cite} decision 1): audio length`), []);
  t.same(check(`/** see ${cite}, lever 3 */`), []);
  t.same(check(`// the layering (${cite} "Layout"), lowest first`), []);
  t.same(check(`// a citation that wraps (${cite}\n// decision 1) is read across the line`), []);
  t.same(check(`// a heading that wraps (${cite} "Speed\n * levers")`), []);
  t.same(check("const design = 'designed by design';"), [], 'the word in lower case is not a citation');
});

t.test('every citation names a decision, lever or heading of docs/DESIGN.md', async (t) => {
  const problems = [...texts].flatMap(([file, text]) => citationProblems(file, text, anchors));
  t.same(problems, [], `fix the citation or ${DOC_PATH}`);
});
