// `svc-stt --help` is what a new user reads first: it lists every option that the "Command line"
// section of docs/OPERATIONS.md lists, and `svc-stt COMMAND --help` shows that command's lines.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import t from 'tap';

import { main } from '../../src/cli/main.js';
import { capturedStdout } from '../helpers/captured-stdout.js';

const OPERATIONS = resolve(fileURLToPath(import.meta.url), '..', '..', '..', 'docs', 'OPERATIONS.md');

/** The first code block of the "## Command line" section of docs/OPERATIONS.md. */
function documentedCommandLineBlock(): string {
  const doc = readFileSync(OPERATIONS, 'utf8');
  const start = doc.indexOf('\n## Command line\n');
  if (start === -1) throw new Error('no section "## Command line" in docs/OPERATIONS.md');
  const end = doc.indexOf('\n## ', start + 1);
  const block = /```[a-z]*\n([\s\S]*?)```/.exec(doc.slice(start, end === -1 ? undefined : end));
  if (!block) throw new Error('no code block in the section "Command line" of docs/OPERATIONS.md');
  return block[1];
}

const optionsIn = (text: string) => new Set(text.match(/--[a-z][a-z-]*/g) ?? []);
const commandsIn = (text: string) => new Set([...text.matchAll(/^\s*(?:npx )?svc-stt ([a-z]+)/gm)].map((m) => m[1]));

t.test('--help lists every command and option of docs/OPERATIONS.md', async (t) => {
  const block = documentedCommandLineBlock();
  const help = await capturedStdout(() => main(['--help']));
  t.ok(optionsIn(block).size > 30, `the documented block lists ${optionsIn(block).size} options`);
  t.same(
    [...optionsIn(block)].filter((option) => !optionsIn(help).has(option)),
    [],
    'options missing from --help',
  );
  t.same(
    [...commandsIn(block)].filter((command) => !commandsIn(help).has(command)),
    [],
    'commands missing from --help',
  );
  t.ok(commandsIn(block).has('bench'));
  t.same(
    block.split('\n').filter((line) => /^svc-stt /.test(line)),
    [],
    'the docs run the CLI as `npx svc-stt` (a plain `svc-stt` is not on the PATH after a local install)',
  );
});

t.test("COMMAND --help and help COMMAND: that command's lines only", async (t) => {
  const bench = await capturedStdout(() => main(['bench', '--help']));
  t.match(bench, /^Usage:\n {2}npx svc-stt bench \[--model PATH\|NAME\] \[--audio FILE \.\.\.\]/);
  t.match(bench, /--max-tokens N\] \[--json\]/, 'with its continuation lines');
  t.notMatch(bench, /svc-stt (transcribe|models|keys)/);
  t.equal(await capturedStdout(() => main(['help', 'bench'])), bench);
  const keys = await capturedStdout(() => main(['keys', 'revoke', 'ID', '-h']));
  t.same([...commandsIn(keys)], ['keys']);
  t.match(keys, /--rate-limit N\|none\]/);
  t.equal(process.exitCode ?? 0, 0);
});
