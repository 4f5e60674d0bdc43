// The code is linted (ESLint with typescript-eslint, eslint.config.mjs) and formatted (Prettier,
// .prettierrc.json) as part of the suite, so a change that breaks either fails `npm test` like any
// other regression. `npm run format` fixes what it can.
//
// Prettier cannot break a long string literal, template literal or comment, so it leaves such a line
// past its printWidth; the line-length check catches those: split the string into a concatenation,
// or rewrap the comment.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import t from 'tap';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
/** Prettier's printWidth (.prettierrc.json): no line of code may be longer. */
const MAX_LINE_LENGTH = 160;
/** Generated or vendored folders, wherever they sit (git ignores them too). */
const NOT_OURS = new Set(['node_modules', 'dist', 'build', 'deps']);

/** The tool's exit status and what it printed (a non-zero exit is an answer here, not a failure). */
async function check(script: string, args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [script, ...args], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** `path:line (length)` for each line of `text` longer than `max` characters (code points). */
function linesLongerThan(path: string, text: string, max: number): string[] {
  const found: string[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const length = [...line].length;
    if (length > max) found.push(`${path}:${index + 1} (${length})`);
  });
  return found;
}

/** The code files git knows of (tracked, or new and not ignored), relative to the repository root. */
async function codeFiles(): Promise<string[]> {
  const args = ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', '*.ts', '*.mjs', '*.js', '*.cjs'];
  const { stdout } = await run('git', args, { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  const files = new Set(stdout.split('\0').filter((file) => file !== ''));
  return [...files].filter((file) => !file.split('/').some((part) => NOT_OURS.has(part)) && existsSync(join(ROOT, file))).sort();
}

t.test('ESLint finds no problem', async (t) => {
  const { code, output } = await check('node_modules/eslint/bin/eslint.js', ['.']);
  t.equal(code, 0, output.slice(-4000));
});

t.test('Prettier finds every file formatted', async (t) => {
  const { code, output } = await check('node_modules/prettier/bin/prettier.cjs', ['--check', '.']);
  t.equal(code, 0, output.slice(-4000));
});

t.test('no line is longer than 160 characters', async (t) => {
  const files = await codeFiles();
  t.ok(files.includes('test/architecture/lint.test.ts') && files.includes('eslint.config.mjs'), `${files.length} code files found`);
  const found = files.flatMap((file) => linesLongerThan(file, readFileSync(join(ROOT, file), 'utf8'), MAX_LINE_LENGTH));
  t.same(found, [], `${found.length} line(s) too long; split the string or rewrap the comment:\n${found.join('\n')}`);
});

t.test('the line-length check flags a 161-character line and passes a 160-character one', async (t) => {
  const line = (length: number) => `const s = '${'x'.repeat(length - 13)}';`;
  t.equal(line(160).length, 160);
  t.same(linesLongerThan('a.ts', line(160), 160), []);
  t.same(linesLongerThan('a.ts', line(161), 160), ['a.ts:1 (161)']);
  t.same(linesLongerThan('a.ts', `// ok\r\n${line(160)}\r\n${line(161)}\n${line(200)}\n`, 160), ['a.ts:3 (161)', 'a.ts:4 (200)'], 'line numbers count from 1');
  t.same(linesLongerThan('a.ts', `// ${'é'.repeat(157)}`, 160), [], 'characters are counted, not bytes');
});
