// A session's clinical vocabulary and patterns over its turns: the terms each turn is decoded with
// (an update waits for the next turn), every request term it was given (start and updates) for the
// final audit, and what prompting and the patterns did, summed over the turns in session time.
import type { ClinicalTextFields } from '../contract/clinical-text-fields.js';
import type { LanguageFamily } from '../domain/language-families.js';
import { redactedSpans } from '../pipeline/clinical-text-stage.js';
import { addPatternTallies, emptyPatternTally, patternsBlock, type PatternTally, shiftPatternTally } from '../pipeline/pattern-stage.js';
import { patternPrograms } from '../pipeline/patterns.js';
import type { PatternProgram } from '../pipeline/patterns/pattern-program.js';
import { addTallies, EMPTY_TALLY, shiftTally, type VocabularyTally } from '../pipeline/prompted-recognition.js';
import { auditVocabulary, disabledVocabularyAudit, planVocabulary, type VocabularyPlan } from '../pipeline/vocabulary-audit.js';
import type { ShownTurnText } from './shown-turn-text.js';
import type { TurnRecognition } from './turn-recognition.js';

export class SessionVocabulary {
  /** The vocabulary turns are decoded with; an update waits in `next` for the next turn. */
  private plan: VocabularyPlan;
  private next: VocabularyPlan | null = null;
  /** Every request term the session was given (start and updates), for the final audit. */
  private readonly requestTerms: string[];
  readonly patterns: PatternProgram[];
  private vocabularyTally: VocabularyTally | null;
  private patternTally: PatternTally | null;

  constructor(
    terms: readonly string[],
    private readonly dictionaryTerms: string[],
    patterns: readonly string[],
    private readonly language: LanguageFamily,
  ) {
    this.requestTerms = [...terms];
    this.plan = planVocabulary(terms, dictionaryTerms, language);
    this.vocabularyTally = this.plan.terms.length > 0 ? EMPTY_TALLY : null;
    this.patterns = patternPrograms(patterns);
    this.patternTally = this.patterns.length > 0 ? emptyPatternTally(this.patterns.length) : null;
  }

  /** The terms the next turn's decode starts with. */
  get current(): VocabularyPlan {
    return this.plan;
  }

  /** New request terms (the key's dictionary stays merged as at the start), for the turns after this one. */
  update(terms: readonly string[]): VocabularyPlan {
    const next = planVocabulary(terms, this.dictionaryTerms, this.language);
    this.next = next;
    for (const term of terms) if (!this.requestTerms.some((t) => t.toLowerCase() === term.toLowerCase())) this.requestTerms.push(term);
    this.vocabularyTally ??= next.terms.length > 0 ? EMPTY_TALLY : null;
    return next;
  }

  /** A turn ended: an update that waited applies from the next one. */
  turnEnded(): void {
    if (this.next) {
      this.plan = this.next;
      this.next = null;
    }
  }

  /** A finished turn's vocabulary and pattern figures, added to the session's (moved to session time by `offset` s). */
  tally(recognised: TurnRecognition, offset: number): void {
    if (recognised.vocabulary) this.vocabularyTally = addTallies(this.vocabularyTally ?? EMPTY_TALLY, shiftTally(recognised.vocabulary, offset));
    if (recognised.patterns && this.patternTally) this.patternTally = addPatternTallies(this.patternTally, shiftPatternTally(recognised.patterns, offset));
  }

  /**
   * The final record's vocabulary audit and pattern report, in the upload response's shapes: over
   * every term the session was given (start and updates) and every turn's text.
   */
  reports(text: string, shown: ShownTurnText, clinicalText: ClinicalTextFields): Record<string, unknown> {
    const plan = planVocabulary(this.requestTerms, this.dictionaryTerms, this.language);
    return {
      vocabulary:
        plan.terms.length > 0 ? auditVocabulary(plan, this.vocabularyTally ?? EMPTY_TALLY, text, this.language) : disabledVocabularyAudit(this.language),
      ...(this.patternTally
        ? { patterns: patternsBlock(shown.redacting ? redactedSpans(this.patternTally, shown.report, clinicalText.redactSubstitution) : this.patternTally) }
        : {}),
      ...(shown.redacting ? { redactions: shown.report.redactions, redaction_counts: shown.report.counts } : {}),
    };
  }
}
