// The vocabulary plan and audit (src/pipeline/vocabulary-audit.ts) and the surface corrections
// (src/pipeline/term-corrections.ts) on recorded segments: merging, dropping, every audit field.
import t from 'tap';

import { EMPTY_TALLY, type VocabularyTally } from '../../src/pipeline/prompted-recognition.js';
import { correctTerms } from '../../src/pipeline/term-corrections.js';
import { auditVocabulary, disabledVocabularyAudit, planVocabulary, VOCABULARY_AUDIT_SCHEMA } from '../../src/pipeline/vocabulary-audit.js';
import { recordedSegment } from '../helpers/recorded-pass.js';

const recognised = (text: string, start = 0, end = 3) => ({ ...recordedSegment({ text, start, end }), language: 'en' as const });

t.test('plan: request terms above the dictionary, deduplicated case-insensitively; bad stored terms dropped', async (t) => {
  const plan = planVocabulary(['Metoprolol', 'apixaban'], ['metoprolol', 'Warfarin', 'x'.repeat(97), 'ok\u0001'], 'en');
  t.same(plan.terms, ['Metoprolol', 'apixaban', 'Warfarin']);
  t.equal(plan.requestTerms, 2);
  t.equal(plan.dictionaryTerms, 1);
  t.same(plan.dropped, ['x'.repeat(97), 'ok\u0001']);
  t.equal(plan.mode, 'direct');
  const big = planVocabulary(
    Array.from({ length: 40 }, (_, i) => `r${i}`),
    Array.from({ length: 40 }, (_, i) => `d${i}`),
    'en',
  );
  t.equal(big.mode, 'retrieval', 'more than 50 merged terms select by retrieval');
  const small = planVocabulary(
    Array.from({ length: 20 }, (_, i) => `r${i}`),
    Array.from({ length: 20 }, (_, i) => `d${i}`),
    'ar',
  );
  t.equal(small.terms.length, 30, 'Arabic keeps 30 terms');
  t.equal(small.dropped.length, 10, 'the dictionary terms past the limit are dropped');
});

t.test('corrections: a near-miss spelling becomes the caller term; numbers and safety words are never touched', async (t) => {
  const segments = [recognised(' Started metoprolal 25 mg, and lisinoprill.'), recognised(' Left knee, no swelling.', 3, 5)];
  const out = correctTerms(segments, ['Metoprolol', 'Lisinopril', 'B12', 'right', 'Nosweling']);
  t.equal(out.segments[0].text, ' Started Metoprolol 25 mg, and Lisinopril.');
  t.same(
    out.corrections.map((c) => [c.term, c.replaced]),
    [
      ['Metoprolol', 'metoprolal'],
      ['Lisinopril', 'lisinoprill.'],
    ],
  );
  t.equal(out.segments[1].text, ' Left knee, no swelling.', 'laterality and negation words are not corrected');
  // Words come from tokens: the corrected word is one word with the run's time.
  const tokens = out.segments[0].tokens.filter((tk) => tk.text !== '');
  t.same(
    tokens.map((tk) => tk.text.trim()),
    ['Started', 'Metoprolol', '25', 'mg,', 'and', 'Lisinopril.'],
  );
  const spelt = correctTerms([recognised(' hydro chloro thiazide daily')], ['hydrochlorothiazide']);
  t.same(spelt.corrections, [], 'three words for one term is beyond the run length a correction considers');
  const far = correctTerms([recognised(' metformin daily')], ['Metoprolol']);
  t.same(far.corrections, [], 'a different drug is not a near miss');
});

t.test('audit: every field computed and self-consistent', async (t) => {
  const plan = planVocabulary(['Metoprolol', 'apixaban', 'warfarin'], ['Lisinopril'], 'en', 'Cardiology note.');
  const tally: VocabularyTally = {
    ...EMPTY_TALLY,
    promptedChunks: 3,
    fallbackChunks: 1,
    promptedTerms: ['Metoprolol', 'apixaban', 'warfarin', 'Lisinopril'],
    suspectTerms: ['apixaban'],
    fallbackReasons: { number: 1 },
    corrections: [{ term: 'Metoprolol', replaced: 'metoprolal', start: 1.23456, end: 2 }],
  };
  const audit = auditVocabulary(plan, tally, 'Started Metoprolol and apixaban.', 'en');
  t.equal(audit.schema, VOCABULARY_AUDIT_SCHEMA);
  t.equal(audit.enabled, true);
  t.equal(audit.requested_terms, 4);
  t.same(audit.delivered_terms, ['Metoprolol', 'apixaban']);
  t.same(audit.unresolved_terms, ['warfarin', 'Lisinopril']);
  t.equal(audit.delivered + audit.unresolved, audit.requested_terms);
  t.equal(audit.applied_terms, audit.delivered, 'the deprecated alias is the delivered count');
  t.same(audit.corrected_terms, ['Metoprolol']);
  t.equal(audit.corrections_applied, 1);
  t.same(audit.corrections, [{ term: 'Metoprolol', replaced: 'metoprolal', start: 1.235, end: 2 }]);
  t.equal(audit.suspect_insertions, 1);
  t.equal(audit.safety_fallback, true);
  t.equal(audit.prompt_status, 'partial_fallback');
  t.equal(audit.prompted_terms, 4);
  t.equal(audit.prompted_chunks, 3);
  t.equal(audit.fallback_chunks, 1);
  t.equal(audit.prompt_supplied, true);
  t.equal(audit.request_terms, 3);
  t.equal(audit.dictionary_terms, 1);
  t.equal(auditVocabulary(plan, { ...tally, fallbackChunks: 3 }, '', 'en').prompt_status, 'fallback');
  t.equal(auditVocabulary(plan, { ...tally, fallbackChunks: 0 }, '', 'en').prompt_status, 'prompted');
  t.equal(auditVocabulary(plan, EMPTY_TALLY, '', 'und').prompt_status, 'no_speech');
  const off = disabledVocabularyAudit('en');
  t.equal(off.enabled, false);
  t.equal(off.prompt_status, 'not_requested');
  t.same(Object.keys(off).sort(), Object.keys(audit).sort(), 'one shape, enabled or not');
});
