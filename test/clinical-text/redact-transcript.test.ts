// redactTranscript: a verbose_json transcript keeps its shape and its times; redacted words say the
// substitution, segments are rebuilt, token ids of a redacted segment go, and the redactions are said
// in seconds with counts per class, never with the text they removed.
import t from 'tap';

import { redactTranscript } from '../../src/clinical-text/redact-transcript.js';

const transcript = () => ({
  task: 'transcribe',
  text: 'My name is Sarah Jones. My cell is five five five, zero one nine two.',
  language: 'en',
  duration: 6,
  segments: [
    { id: 'seg_0', speaker: 'A', text: 'My name is Sarah Jones.', start: 0, end: 2.5, tokens: [1, 2, 3] },
    { id: 'seg_1', speaker: 'A', text: 'My cell is five five five,', start: 2.5, end: 4.2, tokens: [4, 5] },
    { id: 'seg_2', speaker: 'A', text: 'zero one nine two.', start: 4.2, end: 6, tokens: [6] },
  ],
  words: [
    ['My', 0, 0.2],
    ['name', 0.2, 0.5],
    ['is', 0.5, 0.7],
    ['Sarah', 0.7, 1.2],
    ['Jones.', 1.2, 1.8],
    ['My', 2.5, 2.7],
    ['cell', 2.7, 3],
    ['is', 3, 3.2],
    ['five', 3.2, 3.5],
    ['five', 3.5, 3.8],
    ['five,', 3.8, 4.1],
    ['zero', 4.2, 4.5],
    ['one', 4.5, 4.8],
    ['nine', 4.8, 5.2],
    ['two.', 5.2, 5.6],
  ].map(([word, start, end]) => ({ word: word as string, start: start as number, end: end as number, speaker: 'A' })),
  logprobs: [{ token: ' Sarah', logprob: -0.1, bytes: [83] }],
});

t.test('words keep their times and speakers, segments are rebuilt, redactions in seconds', async (t) => {
  const { transcript: out, redactions, counts } = redactTranscript(transcript());
  t.equal(out.text, 'My name is [PERSON_NAME]. My cell is [PHONE_NUMBER].');
  t.same(
    out.segments.map((s) => s.text),
    ['My name is [PERSON_NAME].', 'My cell is [PHONE_NUMBER]', '[PHONE_NUMBER].'],
    'a number across two segments is found, and each part replaced',
  );
  t.same(out.segments[0].tokens, [], "a redacted segment's token ids go");
  t.same(
    out.words.map((w) => w.word),
    ['My', 'name', 'is', '[PERSON_NAME]', '[PERSON_NAME]', 'My', 'cell', 'is', ...Array(7).fill('[PHONE_NUMBER]')],
  );
  t.same(
    out.words.map((w) => [w.start, w.end, w.speaker]),
    transcript().words.map((w) => [w.start, w.end, w.speaker]),
    'times and speakers unchanged',
  );
  t.same(redactions, [
    { type: 'person_name', start: 0.7, end: 1.8 },
    { type: 'phone_number', start: 3.2, end: 5.6 },
  ]);
  t.same(counts, { person_name: 1, phone_number: 1 });
  t.notOk('logprobs' in out, 'token texts go');
  t.equal(out.duration, 6, 'other fields stay');
});

t.test('without words: the segment times; hash substitution; policies', async (t) => {
  const { words: _words, ...noWords } = transcript();
  const { transcript: out, redactions } = redactTranscript(noWords, { substitution: 'hash', policies: ['person_name'] });
  t.equal(out.segments[0].text, 'My name is ####.');
  t.equal(out.segments[1].text, 'My cell is five five five,', 'a class not asked for stays');
  t.same(redactions, [{ type: 'person_name', start: 0, end: 2.5 }]);
});
