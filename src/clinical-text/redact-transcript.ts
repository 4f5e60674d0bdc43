// redactTranscript: a verbose_json transcript (docs/API.md) with its identifiers replaced, keeping its
// shape. Segments are read as one text, so a number split across two segments is still found; each
// segment's text is rebuilt from its part, and a redacted word's text becomes the substitution while its
// start, end and speaker stay. Where each redaction was is said in seconds, never what it said: from
// its words' times, or its segment's where the transcript has no words (the whole segment: wider, never
// short of the audio that said it). Token ids spell what they decode to, so a segment with a redaction
// loses its `tokens`, and `logprobs` (token texts) goes.
import { findEntities, type RedactOptions, substitute } from './redact-text.js';
import { type RedactionClass, resolvePolicies, substitutionFor } from './redaction-classes.js';
import type { RedactionEntity } from './redaction-spans.js';

export interface TranscriptWordLike {
  word: string;
  start: number;
  end: number;
  [field: string]: unknown;
}

export interface TranscriptSegmentLike {
  text: string;
  start: number;
  end: number;
  tokens?: number[];
  [field: string]: unknown;
}

export interface VerboseTranscriptLike {
  text: string;
  segments?: TranscriptSegmentLike[];
  words?: TranscriptWordLike[];
  [field: string]: unknown;
}

export interface TranscriptRedaction {
  type: RedactionClass;
  /** Seconds. */
  start: number;
  end: number;
}

export interface RedactedTranscript<T extends VerboseTranscriptLike> {
  transcript: T;
  redactions: TranscriptRedaction[];
  /** How many of each class were redacted. */
  counts: Partial<Record<RedactionClass, number>>;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** Throws RedactionPolicyError for an unknown policy name. */
export function redactTranscript<T extends VerboseTranscriptLike>(transcript: T, options: RedactOptions = {}): RedactedTranscript<T> {
  const classes = resolvePolicies(options.policies);
  const substitution = options.substitution ?? 'entity_name';
  const segments = transcript.segments ?? [];
  const offsets: number[] = [];
  let joined = '';
  for (const s of segments) {
    if (offsets.length > 0) joined += ' ';
    offsets.push(joined.length);
    joined += s.text;
  }
  const entities = findEntities(joined, classes);
  const segmentOf = (offset: number) => {
    let k = 0;
    while (k + 1 < offsets.length && offsets[k + 1] <= offset) k++;
    return k;
  };

  const newSegments = segments.map((s, k) => {
    const from = offsets[k];
    const to = from + s.text.length;
    const local = entities
      .filter((e) => e.start < to && e.end > from)
      .map((e) => ({ type: e.type, start: Math.max(e.start, from) - from, end: Math.min(e.end, to) - from }));
    if (local.length === 0) return s;
    return { ...s, text: substitute(s.text, local, substitution), ...(s.tokens ? { tokens: [] } : {}) };
  });

  // Each word's place in the joined text, found in order; a word that cannot be placed is redacted if its segment has a redaction.
  const words = transcript.words ?? [];
  const placed = placeWords(joined, words);
  const wordEntity = placed.map((range, w) => {
    if (range) return entities.find((e) => e.start < range[1] && e.end > range[0]);
    const segment = segments.findIndex((s) => words[w].start >= s.start && words[w].start < s.end);
    return segment === -1 ? undefined : entities.find((e) => segmentOf(e.start) === segment);
  });
  const newWords = words.map((w, i) => {
    const e = wordEntity[i];
    return e ? { ...w, word: substitutionFor(e.type, substitution) } : w;
  });

  const redactions = entities.map((e) => timesOf(e, words, wordEntity, segments, segmentOf));
  const counts: Partial<Record<RedactionClass, number>> = {};
  for (const e of entities) counts[e.type] = (counts[e.type] ?? 0) + 1;
  const text = findEntities(transcript.text, classes);
  const out: T = {
    ...transcript,
    text: substitute(transcript.text, text, substitution),
    ...(transcript.segments ? { segments: newSegments } : {}),
    ...(transcript.words ? { words: newWords } : {}),
  };
  delete out.logprobs;
  return { transcript: out, redactions, counts };
}

/** [from, to) of each word in `joined`, searched in order from where the last one ended; null where not found. */
function placeWords(joined: string, words: readonly TranscriptWordLike[]): Array<[number, number] | null> {
  let cursor = 0;
  return words.map((w) => {
    const word = w.word.trim();
    const at = word === '' ? -1 : joined.indexOf(word, cursor);
    if (at === -1) return null;
    cursor = at + word.length;
    return [at, cursor];
  });
}

function timesOf(
  e: RedactionEntity,
  words: readonly TranscriptWordLike[],
  wordEntity: ReadonlyArray<RedactionEntity | undefined>,
  segments: readonly TranscriptSegmentLike[],
  segmentOf: (offset: number) => number,
): TranscriptRedaction {
  const its = words.filter((_, i) => wordEntity[i] === e);
  if (its.length > 0) return { type: e.type, start: round3(Math.min(...its.map((w) => w.start))), end: round3(Math.max(...its.map((w) => w.end))) };
  const first = segments[segmentOf(e.start)];
  const last = segments[segmentOf(Math.max(e.start, e.end - 1))];
  return { type: e.type, start: round3(first?.start ?? 0), end: round3(last?.end ?? 0) };
}
