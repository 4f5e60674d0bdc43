// The patterns stage: each segment's reading (token-reading.ts) searched by every pattern
// (pattern-matcher.ts); where a match reads differently from the text ("b p one twenty over eighty"
// read as "BP 120/80"), the text is replaced by the match. Patterns are tried in the request's order
// and an earlier pattern's match wins where two overlap. Matches stay within a segment.
// The replacement is made on tokens, as term corrections are, so words keep their times: the first
// token of the stretch carries the new text and the stretch's end time, the others become empty.
import type { TranscriptToken } from '../engine/transcript.js';
import { findMatches } from './patterns/pattern-matcher.js';
import type { PatternProgram } from './patterns/pattern-program.js';
import type { RecognisedSegment } from './recognised-segment.js';
import { readText } from './token-reading.js';

/** Spans listed per pattern in a response; `count` goes on counting past it. */
export const MAX_LISTED_SPANS = 1_000;

export interface PatternSpan {
  /** Seconds. */
  start: number;
  end: number;
  /** The text as the pattern formatted it. */
  text: string;
  /** The text it replaced. */
  source: string;
}

export interface PatternTally {
  /** Per pattern, in the request's order. */
  results: Array<{ count: number; spans: PatternSpan[] }>;
  /** (pattern, segment) searches stopped by the matcher's budget before the segment's end. */
  exhausted: number;
}

export const PATTERNS_SCHEMA = 'svc-patterns-v1';

/** The response's `patterns` object. Patterns are named by their place in the request, never echoed. */
export function patternsBlock(tally: PatternTally) {
  return {
    schema: PATTERNS_SCHEMA,
    requested: tally.results.length,
    matches: tally.results.reduce((n, r) => n + r.count, 0),
    results: tally.results.map((r, index) => ({ index, count: r.count, spans: r.spans, spans_truncated: r.count > r.spans.length })),
    budget_exhausted: tally.exhausted,
  };
}

export function emptyPatternTally(patterns: number): PatternTally {
  return { results: Array.from({ length: patterns }, () => ({ count: 0, spans: [] })), exhausted: 0 };
}

export function addPatternTallies(a: PatternTally, b: PatternTally): PatternTally {
  return {
    results: a.results.map((r, i) => ({ count: r.count + b.results[i].count, spans: [...r.spans, ...b.results[i].spans].slice(0, MAX_LISTED_SPANS) })),
    exhausted: a.exhausted + b.exhausted,
  };
}

/** The tally with its times moved `offset` seconds later (a job's chunk into the recording). */
export function shiftPatternTally(tally: PatternTally, offset: number): PatternTally {
  return {
    ...tally,
    results: tally.results.map((r) => ({ ...r, spans: r.spans.map((s) => ({ ...s, start: round3(s.start + offset), end: round3(s.end + offset) })) })),
  };
}

interface Accepted {
  pattern: number;
  /** Characters [from, to) of the segment's text. */
  from: number;
  to: number;
  output: string;
}

export function applyPatterns(segments: RecognisedSegment[], programs: readonly PatternProgram[]): { segments: RecognisedSegment[]; tally: PatternTally } {
  let tally = emptyPatternTally(programs.length);
  const out = segments.map((segment) => {
    // The tokens spell the text; matching their concatenation keeps offsets and tokens in step.
    const text = segment.tokens.map((t) => t.text).join('');
    const { accepted, exhausted } = matchSegment(text, programs);
    const formatted = accepted.length === 0 ? segment : replaceInTokens(segment, accepted);
    const found = emptyPatternTally(programs.length);
    found.exhausted = exhausted;
    for (const a of accepted) {
      const { start, end } = timeOf(segment, a.from, a.to);
      found.results[a.pattern].count++;
      found.results[a.pattern].spans.push({ start, end, text: a.output, source: text.slice(a.from, a.to) });
    }
    tally = addPatternTallies(tally, found);
    return formatted;
  });
  return { segments: out, tally };
}

function matchSegment(text: string, programs: readonly PatternProgram[]): { accepted: Accepted[]; exhausted: number } {
  const reading = readText(text);
  const taken: Array<[number, number]> = [];
  const accepted: Accepted[] = [];
  let exhausted = 0;
  for (const program of programs) {
    const result = findMatches(program, reading);
    if (result.exhausted) exhausted++;
    for (const m of result.matches) {
      if (taken.some(([a, b]) => m.start < b && a < m.end)) continue;
      taken.push([m.start, m.end]);
      accepted.push({ pattern: program.index, from: reading.from[m.start], to: reading.to[m.end - 1], output: m.output });
    }
  }
  return { accepted: accepted.sort((a, b) => a.from - b.from), exhausted };
}

/** Token index ranges [first, last] of each stretch, stretches sharing a token merged. */
function replaceInTokens(segment: RecognisedSegment, accepted: Accepted[]): RecognisedSegment {
  const offsets: number[] = [];
  let length = 0;
  for (const token of segment.tokens) {
    offsets.push(length);
    length += token.text.length;
  }
  const tokenAt = (char: number) => {
    let k = 0;
    for (let i = 0; i < segment.tokens.length; i++) if (segment.tokens[i].text.length > 0 && offsets[i] <= char) k = i;
    return k;
  };
  const clusters: Array<{ first: number; last: number; stretches: Accepted[] }> = [];
  for (const a of accepted) {
    const first = tokenAt(a.from);
    const last = tokenAt(a.to - 1);
    const previous = clusters[clusters.length - 1];
    if (previous && first <= previous.last) {
      previous.last = Math.max(previous.last, last);
      previous.stretches.push(a);
    } else {
      clusters.push({ first, last, stretches: [a] });
    }
  }
  const tokens: TranscriptToken[] = segment.tokens.map((t) => ({ ...t }));
  for (const { first, last, stretches } of clusters) {
    const base = offsets[first];
    let piece = segment.tokens
      .slice(first, last + 1)
      .map((t) => t.text)
      .join('');
    for (const s of [...stretches].reverse()) piece = piece.slice(0, s.from - base) + s.output + piece.slice(s.to - base);
    tokens[first] = { ...tokens[first], text: piece, end: segment.tokens[last].end ?? tokens[first].end };
    for (let k = first + 1; k <= last; k++) tokens[k] = { ...tokens[k], text: '' };
  }
  return { ...segment, tokens, text: tokens.map((t) => t.text).join('') };
}

/** The time of characters [from, to): from the first token's start to the last one's end. */
function timeOf(segment: RecognisedSegment, from: number, to: number): { start: number; end: number } {
  let offset = 0;
  let start: number | null = null;
  let end: number | null = null;
  for (const token of segment.tokens) {
    const a = offset;
    offset += token.text.length;
    if (token.text.length === 0 || offset <= from || a >= to) continue;
    start ??= token.dtw ?? token.start ?? segment.start;
    end = token.end ?? segment.end;
  }
  const clamp = (x: number) => Math.min(Math.max(x, segment.start), segment.end);
  const s = clamp(start ?? segment.start);
  return { start: round3(s), end: round3(Math.max(s, clamp(end ?? segment.end))) };
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
