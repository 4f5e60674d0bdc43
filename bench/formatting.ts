// bench formatting: smart_format (issue 46) on its labelled dev set of spoken clinical sentences
// (test/fixtures/formatting/dev-set.jsonl): exact matches, value changes (sentences whose numbers,
// units, dates, negations or laterality read differently after formatting), and the time to format an
// hour of speech (~9,000 words: the dev set's sentences repeated), as text and as a verbose_json
// transcript with word times. Yardstick, measured in the same run on the same text: one plain
// textWords pass (the tokenizer every reading of a transcript starts with).
//   npm run bench -- formatting [--rounds 7]
// Bars (docs/DESIGN.md "Benchmark bars"): exact >= 0.95, value changes 0.
import { formatTranscript } from '../src/clinical-text/format-transcript.js';
import { formatText } from '../src/clinical-text/smart-format.js';
import { textWords } from '../src/clinical-text/spoken-numbers.js';
import { devSet, scoreDevSet } from '../test/helpers/formatting-dev-set.js';
import { flag, median, printResult, printTable, round } from './lib-report.js';

/** Words spoken in an hour of clinical dictation or conversation (~150 a minute). */
const WORDS_PER_AUDIO_HOUR = 9000;

export async function run(args: string[]): Promise<void> {
  const rounds = Number(flag(args, 'rounds', '7'));
  const sentences = devSet();
  const score = scoreDevSet(sentences);

  const hour: string[] = [];
  let words = 0;
  for (let i = 0; words < WORDS_PER_AUDIO_HOUR; i++) {
    const sentence = sentences[i % sentences.length].spoken;
    hour.push(sentence);
    words += sentence.split(/\s+/).length;
  }
  const text = hour.join(' ');
  const transcript = hourTranscript(text);

  const timed = (f: () => unknown) => {
    const t0 = performance.now();
    f();
    return performance.now() - t0;
  };
  const format: number[] = [];
  const yardstick: number[] = [];
  const asTranscript: number[] = [];
  formatText(text, { language: 'en' }); // warm-up
  textWords(text);
  for (let r = 0; r < rounds; r++) {
    yardstick.push(timed(() => textWords(text)));
    format.push(timed(() => formatText(text, { language: 'en' })));
    asTranscript.push(timed(() => formatTranscript(transcript, { language: 'en' })));
  }
  const formatted = formatText(text, { language: 'en' });

  printTable(
    ['figure', 'value'],
    [
      ['sentences', score.sentences],
      ['exact', `${score.exact} (${round(score.exact / score.sentences)})`],
      ['value changes', score.valueChanges],
      ['must stay words, kept', `${score.unchangedKept}/${score.unchanged}`],
      ['hour of speech: words', words],
      ['  changes / refused', `${formatted.changes.length} / ${formatted.refused}`],
      ['  formatText ms (median)', round(median(format), 1)],
      ['  formatTranscript ms (median)', round(median(asTranscript), 1)],
      ['  textWords ms (yardstick)', round(median(yardstick), 2)],
    ],
  );
  for (const miss of score.misses.slice(0, 10)) console.log(`miss: ${miss.spoken}\n  got:  ${miss.got}\n  want: ${miss.written}`);
  console.log(`\nbars: exact >= 0.95, value changes 0; ${rounds} rounds, medians`);
  printResult('formatting', {
    exact: round(score.exact / score.sentences),
    value_changes: score.valueChanges,
    sentences: score.sentences,
    unchanged_kept: score.unchangedKept,
    unchanged: score.unchanged,
    words_per_audio_hour: words,
    ms_per_audio_hour: round(median(format), 1),
    transcript_ms_per_audio_hour: round(median(asTranscript), 1),
    yardstick_textwords_ms: round(median(yardstick), 2),
    ratio_to_yardstick: round(median(format) / median(yardstick), 1),
    rounds,
  });
}

/** The hour's text as a verbose_json transcript: one segment per ~30 words, a word every 0.4 s. */
function hourTranscript(text: string) {
  const words = text.split(' ').map((word, i) => ({ word, start: i * 0.4, end: i * 0.4 + 0.35, speaker: i % 600 < 300 ? 'A' : 'B' }));
  const segments = [];
  for (let i = 0; i < words.length; i += 30) {
    const part = words.slice(i, i + 30);
    segments.push({ text: part.map((w) => w.word).join(' '), start: part[0].start, end: part[part.length - 1].end, speaker: part[0].speaker });
  }
  return { text, language: 'en', segments, words };
}
