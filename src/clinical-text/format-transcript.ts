// smart_format over a verbose_json transcript: its text, each segment's text and its words. Words keep
// their times: a formatted token spans the words it replaced, from the start of the first to the end
// of the last, with the first's speaker. Words are formatted within one segment and one speaker, so a
// token never joins two segments or two voices.
import { type FormatOptions, formatText, languageFamily } from './smart-format.js';
import type { FormattableTranscript, TranscriptSegmentText, TranscriptWord } from './transcript-shape.js';

export interface TranscriptFormatOptions {
  /** The text's language; when absent, the transcript's own `language`. */
  language?: string;
}

export function formatTranscript<T extends FormattableTranscript>(transcript: T, options: TranscriptFormatOptions = {}): T {
  const format: FormatOptions = { language: options.language ?? transcript.language ?? '' };
  languageFamily(format.language);
  const out: T = { ...transcript, text: formatText(transcript.text, format).text };
  if (transcript.segments) out.segments = transcript.segments.map((s) => ({ ...s, text: formatText(s.text, format).text }));
  if (transcript.words) out.words = formatWords(transcript.words, transcript.segments ?? [], format);
  return out;
}

function formatWords(words: TranscriptWord[], segments: TranscriptSegmentText[], format: FormatOptions): TranscriptWord[] {
  const out: TranscriptWord[] = [];
  let group: TranscriptWord[] = [];
  let key = '';
  let s = 0;
  for (const word of words) {
    // The segment a word falls in: the first that ends after its middle (both are in time order).
    const middle = (word.start + word.end) / 2;
    while (s < segments.length - 1 && segments[s].end <= middle) s++;
    const wordKey = `${s}\u0000${word.speaker ?? ''}`;
    if (wordKey !== key && group.length > 0) {
      out.push(...formatGroup(group, format));
      group = [];
    }
    key = wordKey;
    group.push(word);
  }
  out.push(...formatGroup(group, format));
  return out;
}

/** One run of words read as a text; each change becomes one word over the words it touches. */
function formatGroup(words: TranscriptWord[], format: FormatOptions): TranscriptWord[] {
  if (words.length === 0) return [];
  const offsets: number[] = [];
  let text = '';
  for (const w of words) {
    offsets.push(text.length + (text ? 1 : 0));
    text += (text ? ' ' : '') + w.word;
  }
  const { changes } = formatText(text, format);
  const out: TranscriptWord[] = [];
  let k = 0;
  for (const c of changes) {
    while (offsets[k] + words[k].word.length <= c.from) out.push(words[k++]);
    const first = k;
    while (k + 1 < words.length && offsets[k + 1] < c.to) k++;
    const last = words[k];
    const word = text.slice(offsets[first], c.from) + c.text + text.slice(c.to, offsets[k] + last.word.length);
    out.push({ ...words[first], word, start: words[first].start, end: last.end });
    k++;
  }
  while (k < words.length) out.push(words[k++]);
  return out;
}
