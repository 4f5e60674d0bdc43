// `svc-stt redact`: a transcript on stdin, redacted on stdout. Run as a process (the real stdin, stdout
// and exit status; through tsx, since bin/svc-stt.js runs the compiled dist/) and in-process for the
// transcript form.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import t from 'tap';

import { main } from '../../src/cli/main.js';
import { runRedactCommand } from '../../src/cli/redact-command.js';
import { capturedStdout } from '../helpers/captured-stdout.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `svc-stt ARGS` in a child process with `input` on its stdin. */
function svcStt(args: string[], input: string) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', "import('./src/cli/main.ts').then((cli) => cli.main(process.argv.slice(1)))", ...args], {
    cwd: ROOT,
    input,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

t.test('text on stdin: one JSON object, offsets into the input', async (t) => {
  const input = 'My name is John Smith; call me at five five five, zero one nine two. I take Eliquis.\n';
  const run = svcStt(['redact'], input);
  t.equal(run.status, 0, run.stderr);
  const answer = JSON.parse(run.stdout);
  t.equal(answer.text, 'My name is [PERSON_NAME]; call me at [PHONE_NUMBER]. I take Eliquis.\n');
  t.same(
    answer.entities.map((e: { type: string; start: number; end: number }) => [e.type, input.slice(e.start, e.end)]),
    [
      ['person_name', 'John Smith'],
      ['phone_number', 'five five five, zero one nine two'],
    ],
  );
  t.equal(run.stdout.trimEnd().split('\n').length, 1, 'one line');
});

t.test('an unknown policy: exit 2, naming it and not the input', async (t) => {
  const run = svcStt(['redact', '--policies', 'phone_number,phone'], 'John Smith 555-019-2834');
  t.equal(run.status, 2);
  t.match(run.stderr, /unknown redaction policy 'phone'/);
  t.notMatch(run.stderr, /John|555/);
  t.equal(run.stdout, '');
});

t.test('--json: a verbose_json transcript redacted, words keeping their times', async (t) => {
  const transcript = {
    text: 'Dr. Patel saw her.',
    segments: [{ id: 'seg_0', text: 'Dr. Patel saw her.', start: 0, end: 2, speaker: 'A', tokens: [1, 2] }],
    words: [
      { word: 'Dr.', start: 0, end: 0.3, speaker: 'A' },
      { word: 'Patel', start: 0.3, end: 0.8, speaker: 'A' },
      { word: 'saw', start: 0.8, end: 1.1, speaker: 'A' },
      { word: 'her.', start: 1.1, end: 1.4, speaker: 'A' },
    ],
  };
  let out = '';
  await runRedactCommand(['--json', '--substitution', 'hash'], { write: (s: string) => (out += s) }, { read: async () => JSON.stringify(transcript) });
  const answer = JSON.parse(out);
  t.equal(answer.text, 'Dr. #### saw her.');
  t.equal(answer.segments[0].text, 'Dr. #### saw her.');
  t.same(answer.words[1], { word: '####', start: 0.3, end: 0.8, speaker: 'A' });
  t.same(answer.redactions, [{ type: 'person_name', start: 0.3, end: 0.8 }]);
  t.same(answer.redaction_counts, { person_name: 1 });
  const refused = runRedactCommand(['--json'], { write: () => true }, { read: async () => '{"secret": "John Smith"' });
  await t.rejects(refused, { message: /^--json: standard input is not JSON/ });
  await t.rejects(runRedactCommand(['--substitution', 'stars'], { write: () => true }, { read: async () => '' }), {
    exitCode: 2,
    message: /^--substitution is one of/,
  });
});

t.test('redact --help: its usage lines', async (t) => {
  const out = await capturedStdout(() => main(['redact', '--help']));
  t.match(out, /^Usage:\n {2}npx svc-stt redact \[--policies LIST\] \[--substitution entity_name\|hash\] \[--json\]/);
});
