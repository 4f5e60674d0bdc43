// The vocabulary block of a response (schema svc-vocabulary-audit-v3): what was asked, what was
// prompted, what the safety check did, and what the final text holds. Every field is computed:
//   requested_terms      merged terms considered (request above dictionary, deduplicated, after `dropped`)
//   delivered_terms      those present in the final text (whole words, case-insensitive); `delivered` counts
//   corrected_terms      terms written in by a conservative surface correction (term-corrections.ts);
//                        `corrections_applied` counts replacements, `corrections` lists each
//   unresolved_terms     the rest of requested_terms; delivered + unresolved = requested
//   suspect_insertions   terms printed only with the prompt, by low-probability tokens (prompted-recognition.ts)
//   prompt_status        not_requested | no_speech | prompted | partial_fallback | fallback
//   prompted_terms       distinct terms placed in a prompt; prompted_chunks / fallback_chunks count
//                        decoding windows (at most 30 s of speech each), fallback_reasons by safety rule
//   dropped              dictionary terms rejected before decoding (invalid, or past the language's limit)
//   applied_terms        deprecated alias of the delivered count
import { EMPTY_TALLY, MAX_PROMPTED_TERMS, type VocabularyTally } from './prompted-recognition.js';
import type { SafetyReason } from './safety-check.js';
import { containsTerm } from './term-presence.js';
import { termLimitFor, termProblem } from './vocabulary-terms.js';

export const VOCABULARY_AUDIT_SCHEMA = 'svc-vocabulary-audit-v3';

/** How the terms reach the decoder: all in the prompt, or the chunk's relevant ones (over the prompt budget). */
export const VOCABULARY_MODES = ['direct', 'retrieval'] as const;

export interface VocabularyPlan {
  /** Request terms merged above the key's stored dictionary, deduplicated case-insensitively. */
  terms: string[];
  requestTerms: number;
  dictionaryTerms: number;
  /** Dictionary terms rejected before decoding. */
  dropped: string[];
  mode: (typeof VOCABULARY_MODES)[number];
  /** OpenAI's `prompt`, decoded ahead of the terms and checked the same way. */
  prompt: string | null;
}

/** `vocabularyLanguage`: the language the limits are judged by (vocabulary-terms.ts vocabularyLanguageOf). */
export function planVocabulary(
  requestTerms: readonly string[],
  dictionaryTerms: readonly string[],
  vocabularyLanguage: string,
  prompt: string | null = null,
): VocabularyPlan {
  const limit = termLimitFor(vocabularyLanguage);
  const seen = new Set<string>();
  const terms: string[] = [];
  const dropped: string[] = [];
  let fromDictionary = 0;
  for (const [index, raw] of [...requestTerms, ...dictionaryTerms].entries()) {
    const term = raw.trim();
    const key = term.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    const fromRequest = index < requestTerms.length;
    // Request terms were validated at the edge; a stored term may predate today's rules.
    if (!fromRequest && (termProblem(term) !== null || terms.length >= limit)) {
      dropped.push(raw);
      continue;
    }
    terms.push(term);
    if (!fromRequest) fromDictionary++;
  }
  return {
    terms,
    requestTerms: terms.length - fromDictionary,
    dictionaryTerms: fromDictionary,
    dropped,
    mode: terms.length > MAX_PROMPTED_TERMS ? 'retrieval' : 'direct',
    prompt: prompt && prompt.trim() !== '' ? prompt : null,
  };
}

export const NO_VOCABULARY: VocabularyPlan = { terms: [], requestTerms: 0, dictionaryTerms: 0, dropped: [], mode: 'direct', prompt: null };

/** A plan that prompts something (terms or a prompt). */
export function prompts(plan: VocabularyPlan): boolean {
  return plan.terms.length > 0 || plan.prompt !== null;
}

function promptStatus(plan: VocabularyPlan, tally: VocabularyTally): string {
  if (!prompts(plan)) return 'not_requested';
  if (tally.promptedChunks === 0) return 'no_speech';
  if (tally.fallbackChunks === 0) return 'prompted';
  return tally.fallbackChunks === tally.promptedChunks ? 'fallback' : 'partial_fallback';
}

export function auditVocabulary(plan: VocabularyPlan, tally: VocabularyTally, finalText: string, language: string) {
  const { corrections } = tally;
  const delivered = plan.terms.filter((t) => containsTerm(finalText, t));
  const unresolved = plan.terms.filter((t) => !delivered.includes(t));
  const corrected = [...new Set(corrections.map((c) => c.term))];
  return {
    enabled: plan.terms.length > 0,
    mode: plan.mode,
    requested_terms: plan.terms.length,
    applied_terms: delivered.length,
    suspect_insertions: tally.suspectTerms.length,
    suspect_terms: tally.suspectTerms,
    safety_fallback: tally.fallbackChunks > 0,
    language,
    schema: VOCABULARY_AUDIT_SCHEMA,
    delivered_terms: delivered,
    delivered: delivered.length,
    corrected_terms: corrected,
    corrections_applied: corrections.length,
    corrections: corrections.map((c) => ({ term: c.term, replaced: c.replaced, start: round3(c.start), end: round3(c.end) })),
    unresolved_terms: unresolved,
    unresolved: unresolved.length,
    request_terms: plan.requestTerms,
    dictionary_terms: plan.dictionaryTerms,
    prompt_supplied: plan.prompt !== null,
    prompt_status: promptStatus(plan, tally),
    prompted_terms: tally.promptedTerms.length,
    prompted_chunks: tally.promptedChunks,
    fallback_chunks: tally.fallbackChunks,
    fallback_reasons: tally.fallbackReasons as Partial<Record<SafetyReason, number>>,
    dropped: plan.dropped,
  };
}

export type VocabularyAudit = ReturnType<typeof auditVocabulary>;

export function disabledVocabularyAudit(language: string): VocabularyAudit {
  return auditVocabulary(NO_VOCABULARY, EMPTY_TALLY, '', language);
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/**
 * Two audits of the same plan over different audio (the channels of one recording, transcribed apart)
 * as one: a term is delivered when either text holds it, and the decoding windows and corrections add up.
 */
export function addAudits(a: VocabularyAudit, b: VocabularyAudit): VocabularyAudit {
  const union = (x: readonly string[], y: readonly string[]) => [...new Set([...x, ...y])];
  const delivered = union(a.delivered_terms, b.delivered_terms);
  const unresolved = union(a.unresolved_terms, b.unresolved_terms).filter((t) => !delivered.includes(t));
  const suspect = union(a.suspect_terms, b.suspect_terms);
  const corrections = [...a.corrections, ...b.corrections].sort((x, y) => x.start - y.start);
  const reasons: Partial<Record<SafetyReason, number>> = { ...a.fallback_reasons };
  for (const [reason, count] of Object.entries(b.fallback_reasons) as Array<[SafetyReason, number]>) reasons[reason] = (reasons[reason] ?? 0) + count;
  const promptedChunks = a.prompted_chunks + b.prompted_chunks;
  const fallbackChunks = a.fallback_chunks + b.fallback_chunks;
  const status =
    a.prompt_status === 'not_requested'
      ? a.prompt_status
      : promptStatus({ ...NO_VOCABULARY, prompt: 'prompted' }, { ...EMPTY_TALLY, promptedChunks, fallbackChunks });
  return {
    ...a,
    applied_terms: delivered.length,
    suspect_insertions: suspect.length,
    suspect_terms: suspect,
    safety_fallback: fallbackChunks > 0,
    delivered_terms: delivered,
    delivered: delivered.length,
    corrected_terms: union(a.corrected_terms, b.corrected_terms),
    corrections_applied: corrections.length,
    corrections,
    unresolved_terms: unresolved,
    unresolved: unresolved.length,
    prompt_status: status,
    prompted_terms: Math.max(a.prompted_terms, b.prompted_terms),
    prompted_chunks: promptedChunks,
    fallback_chunks: fallbackChunks,
    fallback_reasons: reasons,
  };
}
