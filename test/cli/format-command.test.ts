// `svc-stt format` as a user runs it, a separate process reading stdin: plain text to {"text"}, a
// verbose_json transcript through --json with its words' times kept, and refusals that name what is
// wrong without printing the input back.
import { spawn } from 'node:child_process';

import t from 'tap';

import { CLI_ARGS } from '../helpers/serve-process.js';

function format(args: string[], stdin: string | Buffer): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI_ARGS, 'format', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

t.test('text on stdin, one JSON object out', async (t) => {
  const said = 'metoprolol twenty five milligrams twice daily, blood pressure one forty two over eighty eight\n';
  const result = await format([], said);
  t.equal(result.code, 0, result.stderr);
  t.equal(result.stdout, '{"text":"metoprolol 25 mg twice daily, blood pressure 142/88"}\n');
  const spanish = await format(['--language', 'es'], 'veinticinco miligramos');
  t.same(JSON.parse(spanish.stdout), { text: '25 mg' }, 'read by the language asked for');
});

t.test('--json: a verbose_json transcript in and out, words keeping their times', async (t) => {
  const transcript = {
    task: 'transcribe',
    text: 'Pain seven out of ten.',
    language: 'en',
    segments: [{ id: 'seg_0', text: 'Pain seven out of ten.', start: 0, end: 3, speaker: 'A' }],
    words: ['Pain', 'seven', 'out', 'of', 'ten.'].map((word, i) => ({ word, start: i * 0.5, end: i * 0.5 + 0.4, speaker: 'A' })),
  };
  const result = await format(['--json'], JSON.stringify(transcript));
  t.equal(result.code, 0, result.stderr);
  const out = JSON.parse(result.stdout);
  t.equal(out.text, 'Pain 7/10.');
  t.equal(out.segments[0].text, 'Pain 7/10.');
  t.same(out.words[1], { word: '7/10.', start: 0.5, end: 2.4, speaker: 'A' });
  t.equal(out.task, 'transcribe');
});

t.test('refusals name what is wrong and never print the input', async (t) => {
  const notJson = await format(['--json'], 'patient secret twenty milligrams');
  t.equal(notJson.code, 1);
  t.match(notJson.stderr, /stdin is not JSON/);
  t.notMatch(notJson.stderr, /secret/);
  const badField = await format(['--json'], JSON.stringify({ text: 'secret', segments: [{ text: 'secret', start: 'x', end: 1 }] }));
  t.equal(badField.code, 1);
  t.match(badField.stderr, /segments\[0\]\.start must be a number/);
  t.notMatch(badField.stderr, /secret/);
  const notUtf8 = await format([], Buffer.from([0x66, 0xff, 0xfe]));
  t.equal(notUtf8.code, 1);
  t.match(notUtf8.stderr, /stdin is not UTF-8 text/);
  const badLanguage = await format(['--language', 'secret'], 'x');
  t.equal(badLanguage.code, 2);
  t.match(badLanguage.stderr, /--language must be one of the families/);
  t.notMatch(badLanguage.stderr, /secret/);
  const english = await format(['--json'], JSON.stringify({ text: 'x', language: 'english' }));
  t.match(english.stderr, /language must be .* \(or pass --language\)/, "OpenAI's language names are not tags");
});
