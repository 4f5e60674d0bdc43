// smart_format over a verbose_json transcript (src/clinical-text/format-transcript.ts): text, segments
// and words formatted alike; a formatted word spans the words it replaced with their times and
// speaker; words never join across segments or speakers; a malformed transcript is refused by field.
import t from 'tap';

import { formatTranscript } from '../../src/clinical-text/format-transcript.js';
import { FormatOptionError } from '../../src/clinical-text/smart-format.js';
import { readTranscript, type TranscriptWord } from '../../src/clinical-text/transcript-shape.js';

function timed(text: string, start: number, speaker?: string): TranscriptWord[] {
  return text.split(' ').map((word, i) => ({ word, start: start + i, end: start + i + 0.5, ...(speaker ? { speaker } : {}) }));
}

t.test('a formatted word spans the words it replaced', async (t) => {
  const words = timed('Metoprolol twenty five milligrams, twice daily.', 0, 'A');
  const text = words.map((w) => w.word).join(' ');
  const transcript = { text, language: 'en', duration: 6, segments: [{ id: 'seg_0', text, start: 0, end: 6, speaker: 'A' }], words };
  const out = formatTranscript(transcript);
  t.equal(out.text, 'Metoprolol 25 mg, twice daily.');
  t.equal(out.segments[0].text, out.text);
  t.equal(out.segments[0].id, 'seg_0', 'other fields kept');
  t.equal(out.duration, 6);
  t.same(out.words, [
    { word: 'Metoprolol', start: 0, end: 0.5, speaker: 'A' },
    { word: '25 mg,', start: 1, end: 3.5, speaker: 'A' },
    { word: 'twice', start: 4, end: 4.5, speaker: 'A' },
    { word: 'daily.', start: 5, end: 5.5, speaker: 'A' },
  ]);
  t.equal(transcript.words[1].word, 'twenty', 'the input is not changed');
});

t.test('words never join across speakers or segments', async (t) => {
  const words = [...timed('pressure one forty two', 0, 'A'), ...timed('over eighty eight', 4, 'B')];
  const out = formatTranscript({ text: 'pressure one forty two over eighty eight', language: 'en', words });
  t.same(
    out.words!.map((w) => w.word),
    ['pressure', '142', 'over', 'eighty', 'eight'],
    "B's words stay words: a pressure split between voices is not one",
  );
  t.same(out.words![1], { word: '142', start: 1, end: 3.5, speaker: 'A' });
  const segments = [
    { text: 'give twenty', start: 0, end: 2 },
    { text: 'five milligrams', start: 2, end: 4 },
  ];
  const split = formatTranscript({ text: 'give twenty five milligrams', language: 'en', segments, words: timed('give twenty five milligrams', 0) });
  t.same(
    split.words!.map((w) => w.word),
    ['give', 'twenty', '5 mg'],
    'formatted within each segment',
  );
});

t.test('language: the option, else the transcript, else refused by field', async (t) => {
  const said = { text: 'twenty five milligrams' };
  t.equal(formatTranscript(said, { language: 'en' }).text, '25 mg');
  t.equal(formatTranscript({ ...said, language: 'en-US' }).text, '25 mg');
  t.equal(formatTranscript({ ...said, language: 'es' }).text, said.text, 'read as Spanish, English words say no number');
  t.equal(formatTranscript({ text: 'veinticinco miligramos', language: 'es' }).text, '25 mg', 'the transcript language is read');
  t.equal((t.throws(() => formatTranscript(said)) as FormatOptionError).field, 'language');
});

t.test('readTranscript names the field that is wrong, never its content', async (t) => {
  const cases: Array<[unknown, string]> = [
    [[], 'transcript'],
    [{ text: 7 }, 'text'],
    [{ text: '', segments: {} }, 'segments'],
    [{ text: '', segments: [{ text: 'secret 5 mg', start: 0 }] }, 'segments[0].end'],
    [
      {
        text: '',
        words: [
          { word: 'a', start: 0, end: 1 },
          { word: 3, start: 0, end: 1 },
        ],
      },
      'words[1].word',
    ],
    [{ text: '', words: [{ word: 'a', start: 0, end: 1, speaker: 1 }] }, 'words[0].speaker'],
  ];
  for (const [value, field] of cases) {
    const error = t.throws(() => readTranscript(value)) as FormatOptionError;
    t.equal(error.field, field);
    t.notMatch(error.message, /secret/);
  }
  t.ok(readTranscript({ text: 'ok', segments: [], words: [] }));
});
