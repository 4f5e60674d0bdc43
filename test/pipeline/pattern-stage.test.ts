// Patterns over transcripts (src/pipeline/token-reading.ts, pattern-stage.ts) on recorded engine
// outputs: what a transcript reads as, how a match replaces its tokens and keeps their times, which
// of two overlapping matches wins, and the rule the whole feature rests on: formatting never adds a
// digit, and never runs two numbers together. The automaton itself: pattern-engine.test.ts.
import t from 'tap';

import type { TranscriptToken } from '../../src/engine/transcript.js';
import { addPatternTallies, applyPatterns, patternsBlock, shiftPatternTally } from '../../src/pipeline/pattern-stage.js';
import { patternPrograms } from '../../src/pipeline/patterns.js';
import { SOFT_JOINABLE, SOFT_SEPARATING } from '../../src/pipeline/patterns/pattern-matcher.js';
import { recogniseRuns } from '../../src/pipeline/recognise-stage.js';
import type { RecognisedSegment } from '../../src/pipeline/recognised-segment.js';
import { readText } from '../../src/pipeline/token-reading.js';
import { wordsOfSegment } from '../../src/pipeline/words.js';
import { numbersSaid } from '../helpers/numbers-said.js';
import { recordedPass, recordedSegment } from '../helpers/recorded-pass.js';

/** The reading with soft gaps shown: `~` may be dropped, `=` may not. */
function shown(text: string): string {
  return Array.from(readText(text).units, (u) => (u === SOFT_JOINABLE ? '~' : u === SOFT_SEPARATING ? '=' : String.fromCodePoint(u))).join('');
}

/** A segment whose tokens are the given pieces (whisper's BPE: a leading space starts a word), 0.5 s each. */
function tokenised(pieces: string[], start = 10): RecognisedSegment {
  const tokens: TranscriptToken[] = pieces.map((text, i) => ({
    id: 2000 + i,
    text,
    bytes: new TextEncoder().encode(text),
    p: 0.8,
    logprob: Math.log(0.8),
    start: start + i * 0.5,
    end: start + (i + 1) * 0.5,
    dtw: null,
    special: false,
  }));
  return { start, end: start + pieces.length * 0.5, text: pieces.join(''), noSpeechProb: 0.01, speakerTurnNext: false, tokens, language: 'en' };
}

const segmentOf = (text: string, start = 0): RecognisedSegment => ({ ...recordedSegment({ text, start, end: start + 5 }), language: 'en' });
const format = (text: string, patterns: string[]) => applyPatterns([segmentOf(text)], patternPrograms(patterns)).segments[0].text;

t.test('what a transcript reads as', async (t) => {
  const cases: Array<[string, string]> = [
    [' BP one twenty over eighty.', 'BP~120~/~80.'],
    [' m r n zero four five six seven eight nine', 'M~R~N~0456789'],
    [' b.p. 120/80', 'B~P. 120/80'],
    [' m-r-n 12', 'M~R~N~12'],
    [' five percent dextrose', '5~%~dextrose'],
    [' 120 eighty', '120=80'],
    [' one hundred and twenty', '120'],
    [' ninety eight point six', '98.6'],
    [' one twenty eighty', '12080'],
    // Words read as themselves unless they stand for a character where they are.
    [' sleeps over weekends', 'sleeps over weekends'],
    [' a dash of salt', 'a dash of salt'],
    [' seven percent', '7~%'],
    [' the percent', 'the percent'],
    [' I am a patient', 'I am a patient'],
    [' first dose', 'first dose'],
    [' Dosis de cinco mg', 'Dosis de cinco mg'],
  ];
  for (const [text, reading] of cases) t.equal(shown(text), reading, JSON.stringify(text));
  const r = readText(' BP one twenty');
  const from = Array.from(r.from);
  t.same([from[0], from[2], from[3], from[5]], [1, 3, 4, 4], "every unit maps back: a number's digits to all of its words");
  t.equal(r.to[5], ' BP one twenty'.length);
});

t.test("a match replaces its tokens; the first carries the text and the stretch's end time", async (t) => {
  const segment = tokenised([' BP', ' one', ' tw', 'enty', ' over', ' eighty', ',', ' pulse', ' ninety', '.']);
  const { segments, tally } = applyPatterns([segment], patternPrograms(['BP \\d{2,3}/\\d{2,3}']));
  const out = segments[0];
  t.equal(out.text, ' BP 120/80, pulse ninety.');
  t.equal(out.tokens.map((tk) => tk.text).join(''), out.text, 'the tokens spell the text');
  t.equal(out.tokens[0].text, ' BP 120/80');
  t.equal(out.tokens[0].start, 10);
  t.equal(out.tokens[0].end, 13, 'the end of "eighty"');
  t.same(
    out.tokens.slice(1, 6).map((tk) => tk.text),
    ['', '', '', '', ''],
  );
  t.same(
    out.tokens.slice(6).map((tk) => tk.text),
    [',', ' pulse', ' ninety', '.'],
    'the rest is untouched',
  );
  t.same(
    out.tokens.map((tk) => tk.p),
    segment.tokens.map((tk) => tk.p),
    'confidences kept',
  );
  const words = wordsOfSegment(out);
  t.same(
    words.map((w) => [w.word, w.start, w.end]),
    [
      ['BP 120/80,', 10, 13.5],
      ['pulse', 13.5, 14],
      ['ninety.', 14, 15],
    ],
    'words keep their times',
  );
  t.same(tally, { results: [{ count: 1, spans: [{ start: 10, end: 13, text: 'BP 120/80', source: 'BP one twenty over eighty' }] }], exhausted: 0 });
  t.equal(segment.text, ' BP one twenty over eighty, pulse ninety.', 'the input segment is not modified');
});

t.test("a match inside a token keeps the token's other characters", async (t) => {
  const segment = tokenised([' (m', ' r', ' n', ' one', ' two', ' three)', ' noted']);
  const { segments } = applyPatterns([segment], patternPrograms(['MRN[ -]?\\d+']));
  t.equal(segments[0].text, ' (MRN 123) noted');
  t.equal(segments[0].tokens[0].text, ' (MRN 123)');
});

t.test('formats that reshape what was said', async (t) => {
  t.equal(format(' MRN is m r n zero four five six seven eight nine.', ['MRN-\\d{7}']), ' MRN is MRN-0456789.');
  t.equal(format(' Temperature ninety eight point six today', ['\\d+\\.\\d']), ' Temperature 98.6 today');
  t.equal(format(' Start five percent dextrose', ['\\d+%']), ' Start 5% dextrose');
  t.equal(format(' Pressure one twenty over eighty', ['\\d+/\\d+']), ' Pressure 120/80');
  t.equal(format(' Pressure one twenty over eighty', ['(?i)bp \\d+/\\d+']), ' Pressure one twenty over eighty', 'no BP said: no match');
  t.equal(
    format(' m r n one two three four five six', ['MRN \\d{7}']),
    ' m r n one two three four five six',
    'six digits said: a seven-digit pattern does not match',
  );
  t.equal(format(' m r n one two three four five six', ['MRN \\d{3}-\\d{3}']), ' m r n one two three four five six', 'one number is never cut in two');
  t.equal(format(' Temp ninety eight point six', ['\\d+']), ' Temp ninety eight point six', 'never a part of one read number (98 of 98.6)');
  t.equal(format(' Ward 120 eighty', ['\\d{5}']), ' Ward 120 eighty', 'two numbers never run together');
  t.equal(format(' Ward 120 eighty', ['\\d+-\\d+']), ' Ward 120-80', 'a gap between numbers may be a hyphen');
  t.equal(format(' Taken at 120/80 by b p', ['BP']), ' Taken at 120/80 by BP');
});

t.test("patterns in the request's order: an earlier pattern wins where matches overlap", async (t) => {
  const text = ' m r n one two three';
  const first = applyPatterns([segmentOf(text)], patternPrograms(['\\d+', 'MRN \\d+']));
  t.equal(first.segments[0].text, ' m r n 123');
  t.same(
    first.tally.results.map((r) => r.count),
    [1, 0],
  );
  const second = applyPatterns([segmentOf(text)], patternPrograms(['MRN \\d+', '\\d+']));
  t.equal(second.segments[0].text, ' MRN 123');
  t.same(
    second.tally.results.map((r) => r.count),
    [1, 0],
  );
});

t.test('matches stay within a segment; the tally adds up over segments and shifts to the recording', async (t) => {
  const segments = [segmentOf(' Dose one two', 0), segmentOf(' three four and 5', 5)];
  const { segments: out, tally } = applyPatterns(segments, patternPrograms(['\\d+']));
  t.same(
    out.map((s) => s.text),
    [' Dose 12', ' 34 and 5'],
  );
  t.equal(tally.results[0].count, 3);
  t.same(
    tally.results[0].spans.map((s) => s.text),
    ['12', '34', '5'],
  );
  const shifted = shiftPatternTally(tally, 100);
  t.same(
    shifted.results[0].spans.map((s) => s.start),
    tally.results[0].spans.map((s) => s.start + 100),
  );
  const block = patternsBlock(addPatternTallies(tally, shifted));
  t.same(
    { ...block, results: block.results.map((r) => ({ ...r, spans: r.spans.length })) },
    {
      schema: 'svc-patterns-v1',
      requested: 1,
      matches: 6,
      results: [{ index: 0, count: 6, spans: 6, spans_truncated: false }],
      budget_exhausted: 0,
    },
  );
});

t.test('formatting never adds a digit, drops one, or runs two numbers together', async (t) => {
  const vocabulary = [
    'one',
    'two',
    'three',
    'zero',
    'twenty',
    'eighty',
    'hundred',
    'and',
    'point',
    'five',
    'over',
    'slash',
    'dash',
    'percent',
    'b',
    'p',
    'm',
    'r',
    'n',
    'a',
    'mg',
    'BP',
    'MRN',
    '120',
    '80',
    '0',
    '7.5',
    '/',
    '-',
    ',',
    '.',
    'patient',
    'dose',
    'left',
  ];
  const patterns = [
    'BP \\d+/\\d+',
    'MRN ?\\d{3,8}',
    '\\d{3}-\\d{4}',
    '0\\d+',
    '\\d+',
    '\\d+ ?mg',
    '[A-Z]+\\d*',
    '\\d+\\.\\d+',
    '\\d+%',
    '(?i)[a-z]+ \\d',
    '\\d\\d?-\\d',
    '.+',
    '\\w+[ -]\\w+',
    '1\\d0',
    '[0-9 -]+',
    'MRN-0{2}\\d+',
  ];
  let seed = 11;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
  let changed = 0;
  for (let i = 0; i < 1500; i++) {
    const words = Array.from({ length: 3 + Math.floor(random() * 10) }, () => pick(vocabulary));
    const text = ` ${words.join(' ')}`;
    const chosen = Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(patterns));
    const formatted = format(text, chosen);
    if (formatted !== text) changed++;
    const before = numbersSaid(text);
    const after = numbersSaid(formatted);
    if (JSON.stringify(before) !== JSON.stringify(after))
      t.fail(`${JSON.stringify(text)} → ${JSON.stringify(formatted)} with ${chosen.join(' , ')}: ${before} ≠ ${after}`);
  }
  t.ok(changed > 400, `${changed} of 1,500 transcripts reformatted, none with a digit added, lost or merged`);
});

t.test('recognition applies the patterns to each window, after the decode', async (t) => {
  const pcm = new Float32Array(16_000 * 10);
  const transcribe = async () => recordedPass([{ text: ' BP one twenty over eighty and m r n four five six', start: 0, end: 6 }]);
  const out = await recogniseRuns({
    pcm,
    sampleRate: 16_000,
    runs: [{ language: 'en', regions: [{ start: 1, end: 7 }] }],
    optionsFor: (language) => ({ language }),
    transcribe,
    patterns: patternPrograms(['BP \\d+/\\d+', 'MRN \\d+']),
  });
  t.equal(out.text, 'BP 120/80 and MRN 456');
  t.same(
    out.patterns?.results.map((r) => r.count),
    [1, 1],
  );
  t.ok(out.patterns!.results[1].spans[0].start >= 1, "spans in the recording's time");
  const without = await recogniseRuns({
    pcm,
    sampleRate: 16_000,
    runs: [{ language: 'en', regions: [{ start: 1, end: 7 }] }],
    optionsFor: (language) => ({ language }),
    transcribe,
  });
  t.equal(without.patterns, null, 'no patterns, no tally');
  t.equal(without.text, 'BP one twenty over eighty and m r n four five six');
});
