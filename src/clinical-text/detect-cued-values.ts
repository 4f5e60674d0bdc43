// Values after a cue: "MRN is 4471902", "member ID XJ 447 1902", "my cell is five five five, zero one
// nine two", "serial number A-B-1-2-3-4". The cue names the class, so the value's shape only has to be
// an identifier's: digits (written or spoken), letters spelled one by one, codes mixing the two.
import type { IdentifierClass } from './redaction-classes.js';
import { CUE_FILLERS, VALUE_CUES } from './redaction-cues.js';
import { type Candidate, CERTAINTY, foldInPlace, phrasesSource } from './redaction-spans.js';
import { fold } from './spoken-numbers.js';
import { type TextAnalysis, wordAt } from './text-analysis.js';

const CLASS_OF = new Map<string, IdentifierClass>();
for (const [type, phrases] of Object.entries(VALUE_CUES)) for (const p of phrases) CLASS_OF.set(foldInPlace(p), type as IdentifierClass);
const CUES = new RegExp(phrasesSource(CLASS_OF.keys()), 'gu');

/** How many digits (or characters of a code) a cued value needs: a phone number has seven; "last four of my social" four. */
const MIN_DIGITS: Partial<Record<IdentifierClass, number>> = { phone_number: 7 };
const DEFAULT_MIN_DIGITS = 4;
/** A gap inside a value: spaces, hyphens, a comma, a colon or hash after the cue; not a sentence's end. */
const VALUE_GAP = /^[\s\-–,:#/()]{0,4}$/;
const MAX_FILLERS = 4;
const FILLERS = new Set([...CUE_FILLERS].map(fold));

export function detectCuedValues(a: TextAnalysis): Candidate[] {
  const out: Candidate[] = [];
  const runAt = new Map(a.runs.map((r) => [r.firstWord, r]));
  for (const m of a.lower.matchAll(CUES)) {
    const type = CLASS_OF.get(m[0].replace(/\s+/g, ' '));
    if (type === undefined) continue;
    let i = wordAt(a.words, m.index + m[0].length);
    let fillers = 0;
    // A cue inside a word ("Social's"): the value starts after the word.
    let gapFrom = Math.max(m.index + m[0].length, a.words[i - 1]?.to ?? 0);
    while (i < a.words.length && fillers < MAX_FILLERS && FILLERS.has(a.words[i].text) && VALUE_GAP.test(a.text.slice(gapFrom, a.words[i].from))) {
      gapFrom = a.words[i].to;
      i++;
      fillers++;
    }
    const value = valueFrom(a, i, gapFrom, runAt);
    if (value === null) continue;
    if (value.digits < (MIN_DIGITS[type] ?? DEFAULT_MIN_DIGITS)) continue;
    out.push({ type, start: value.start, end: value.end, certainty: CERTAINTY.cue });
  }
  return out;
}

/** The value starting at word `i`: number runs, codes with a digit, single letters, short capitals beside digits. */
function valueFrom(a: TextAnalysis, i: number, gapFrom: number, runAt: Map<number, TextAnalysis['runs'][number]>) {
  let start = -1;
  let end = -1;
  let digits = 0;
  let characters = 0;
  let lastSpoken = false;
  while (i < a.words.length && VALUE_GAP.test(a.text.slice(end === -1 ? gapFrom : end, a.words[i].from))) {
    const run = runAt.get(i);
    const raw = a.text.slice(a.words[i].from, a.words[i].to);
    // After a comma only digits said on continue ("five five, nine eight"): "MRN 4471902, 45 years old" ends at the comma.
    if (end !== -1 && a.text.slice(end, a.words[i].from).includes(',') && !(run?.spoken && lastSpoken)) break;
    lastSpoken = run?.spoken ?? false;
    let to: number;
    let next: number;
    if (run) {
      to = run.to;
      next = run.endWord;
      digits += run.digits.length;
    } else if (/\p{N}/u.test(raw) && /^[\p{L}\p{N}]+$/u.test(raw)) {
      to = a.words[i].to;
      next = i + 1;
      digits += raw.replace(/\P{N}/gu, '').length;
      characters += raw.replace(/\P{L}/gu, '').length;
    } else if (/^\p{L}$/u.test(raw) || (/^\p{Lu}{2,4}$/u.test(raw) && digits + characters === 0)) {
      to = a.words[i].to;
      next = i + 1;
      characters += raw.length;
    } else {
      break;
    }
    if (start === -1) start = run ? run.from : a.words[i].from;
    end = to;
    i = next;
  }
  if (start === -1 || digits === 0) return null;
  return { start, end, digits: digits + characters };
}
