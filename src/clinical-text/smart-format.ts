// smart_format (issue 46): spoken clinical quantities written the way a chart writes them, under
// medication-safety rules (written-number.ts, english-quantity-words.ts). A formatted text says
// exactly what the words said: every change is proved by the vocabulary safety check's facts
// (safety-facts.ts: numbers, units, dates, negations, laterality) on the change with the words around
// it, then once more on the whole text; a change that fails stays words, and a text that fails is
// returned as it came. Pure: no clock, no I/O, the same output for the same input.
import { type LanguageFamily, parseLanguageTag, SUPPORTED_LANGUAGE_TAGS } from '../domain/language-families.js';
import { type Candidate, englishCandidates } from './english-formatting.js';
import { familyCandidates } from './family-formatting.js';
import { safetyFacts, sameFacts } from './safety-facts.js';
import { textWords } from './spoken-numbers.js';

export interface FormatOptions {
  /** A language family or regional tag (`en`, `en-GB`): the language the text is in. */
  language: string;
}

/** One change: the input's [from, to) (UTF-16 offsets) is written as `text`. */
export type FormatChange = Candidate;

export interface FormattedText {
  text: string;
  /** In order, not overlapping; offsets are into the input text. */
  changes: FormatChange[];
  /** Changes the safety check refused: those words stayed as they were. */
  refused: number;
}

/** A refused option; the message names the field and never repeats its value. */
export class FormatOptionError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'FormatOptionError';
  }
}

/** Each family's quantities: English's rules, and the other families' narrower ones (family-formatting.ts). */
const FORMATTERS: Readonly<Record<LanguageFamily, (text: string) => Candidate[]>> = {
  en: englishCandidates,
  es: (text) => familyCandidates(text, 'es'),
  pt: (text) => familyCandidates(text, 'pt'),
  fr: (text) => familyCandidates(text, 'fr'),
  de: (text) => familyCandidates(text, 'de'),
  nl: (text) => familyCandidates(text, 'nl'),
  ar: (text) => familyCandidates(text, 'ar'),
  hi: (text) => familyCandidates(text, 'hi'),
};

export const FORMATTED_FAMILIES = Object.keys(FORMATTERS) as LanguageFamily[];

/** How many words either side of a change the check reads with it: spoken numbers join their neighbours. */
const CONTEXT_WORDS = 3;

export function formatText(text: string, options: FormatOptions): FormattedText {
  if (typeof text !== 'string') throw new FormatOptionError('text', 'text must be a string');
  const family = languageFamily(options?.language);
  return applyProved(text, FORMATTERS[family](text), family);
}

/** The candidates the safety check proves, applied; exported for the tests that hand it a wrong one. */
export function applyProved(text: string, candidates: readonly Candidate[], family: LanguageFamily = 'en'): FormattedText {
  if (candidates.length === 0) return { text, changes: [], refused: 0 };
  const changes = provedChanges(text, candidates, family);
  const formatted = applyChanges(text, changes);
  if (!sameFacts(safetyFacts(text, family), safetyFacts(formatted, family))) return { text, changes: [], refused: candidates.length };
  return { text: formatted, changes, refused: candidates.length - changes.length };
}

export function languageFamily(language: unknown): LanguageFamily {
  const tag = typeof language === 'string' ? parseLanguageTag(language) : null;
  if (!tag) throw new FormatOptionError('language', `language must be ${SUPPORTED_LANGUAGE_TAGS}`);
  return tag.family;
}

/** The candidates whose facts, read with the words around them, are those of the words they replace. */
function provedChanges(text: string, candidates: readonly Candidate[], family: LanguageFamily): Candidate[] {
  const words = textWords(text);
  const proved: Candidate[] = [];
  let w = 0;
  for (const c of candidates) {
    while (w < words.length && words[w].to <= c.from) w++;
    const before = words[Math.max(0, w - CONTEXT_WORDS)]?.from ?? c.from;
    let after = w;
    while (after < words.length && words[after].from < c.to) after++;
    const end = words[Math.min(words.length, after + CONTEXT_WORDS) - 1]?.to ?? c.to;
    const from = Math.min(before, c.from);
    const to = Math.max(end, c.to);
    const original = text.slice(from, to);
    const changed = text.slice(from, c.from) + c.text + text.slice(c.to, to);
    if (sameFacts(safetyFacts(original, family), safetyFacts(changed, family))) proved.push(c);
  }
  return proved;
}

export function applyChanges(text: string, changes: readonly Candidate[]): string {
  let out = '';
  let at = 0;
  for (const c of changes) {
    out += text.slice(at, c.from) + c.text;
    at = c.to;
  }
  return out + text.slice(at);
}
