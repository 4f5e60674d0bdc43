// The last stage of a transcription: smart_format, then PHI redaction (docs/API.md "Smart format" and
// "Redaction"), over everything of the outcome that carries words: the text, the segments, the words and
// the patterns' spans. Formatting comes first so a date or number is redacted in the form it is shown.
// What redaction changes leaves nothing behind that spells it: a redacted segment loses its token ids
// (they decode to the words; its confidence is kept, computed before), and a pattern span over a
// redaction is substituted too. Every route's answer is shaped from this outcome, so none shows more.
import { formatTranscript } from '../clinical-text/format-transcript.js';
import { redactTranscript, type VerboseTranscriptLike } from '../clinical-text/redact-transcript.js';
import type { Substitution } from '../clinical-text/redaction-classes.js';
import { substitutionFor } from '../clinical-text/redaction-classes.js';
import type { FormattableTranscript } from '../clinical-text/transcript-shape.js';
import type { PatternTally } from './pattern-stage.js';
import type { RedactionReport, TranscriptionOutcome } from './run-transcription.js';
import { answerWords, type AttributedSegment, type AttributedWord } from './speaker-attachment.js';
import { meanTokenProbability } from './words.js';

/** What the request asked of the words: formatting, and which classes to redact with what. */
export interface ClinicalTextRequest {
  smartFormat?: boolean;
  /** Policy names (classes or groups); null or absent: no redaction. */
  redact?: readonly string[] | null;
  redactSubstitution?: Substitution;
  /** Words and segments whose confidence is below this are marked for review; null or absent: none. */
  confidenceThreshold?: number | null;
}

/** The mean probability of a segment's text tokens: its confidence (null without tokens). */
export function segmentConfidence(segment: Pick<AttributedSegment, 'tokens'>): number | null {
  return meanTokenProbability(segment.tokens);
}

export function applyClinicalText(outcome: TranscriptionOutcome, request: ClinicalTextRequest): TranscriptionOutcome {
  const redacting = (request.redact?.length ?? 0) > 0;
  // Only English is formatted (clinical-text/smart-format.ts); a text with another family passes through.
  const formatting = request.smartFormat === true && outcome.families.length > 0 && outcome.families.every((f) => f === 'en');
  const threshold = request.confidenceThreshold ?? null;
  if (!redacting && !formatting) return threshold === null ? outcome : markedLowConfidence(outcome, threshold);

  const attached = outcome.speakers;
  const words = answerWords(outcome);
  const segments = attached.segments.map((s) => ({ ...s, confidence: s.confidence === undefined ? segmentConfidence(s) : s.confidence }));
  let view = { text: outcome.text, language: 'en', segments, ...(words ? { words } : {}) };
  if (formatting) view = formatTranscript(view as FormattableTranscript, { language: 'en' }) as typeof view;
  let redaction: RedactionReport | null = null;
  if (redacting) {
    // The redactor empties a redacted segment's `tokens`, whatever their shape.
    const redacted = redactTranscript(view as unknown as VerboseTranscriptLike, {
      policies: request.redact ?? [],
      ...(request.redactSubstitution ? { substitution: request.redactSubstitution } : {}),
    });
    view = redacted.transcript as unknown as typeof view;
    redaction = { redactions: redacted.redactions, counts: redacted.counts };
  }
  const shownSegments = view.segments as AttributedSegment[];
  const shown: TranscriptionOutcome = {
    ...outcome,
    text: view.text,
    // The decoded segments are the answer's too once their words changed (a redacted one without its tokens).
    segments: redacting ? shownSegments : outcome.segments,
    speakers: { ...attached, segments: shownSegments, words: (view.words as AttributedWord[] | undefined) ?? attached.words },
    patterns: outcome.patterns && redaction ? redactedSpans(outcome.patterns, redaction, request.redactSubstitution ?? 'entity_name') : outcome.patterns,
    redaction,
  };
  return threshold === null ? shown : markedLowConfidence(shown, threshold);
}

/** Words and segments below `threshold` marked for a reviewer; the confidences themselves are unchanged. */
function markedLowConfidence(outcome: TranscriptionOutcome, threshold: number): TranscriptionOutcome {
  const attached = outcome.speakers;
  const words = answerWords(outcome);
  return {
    ...outcome,
    speakers: {
      ...attached,
      segments: attached.segments.map((s) => {
        const confidence = s.confidence !== undefined ? s.confidence : segmentConfidence(s);
        return confidence !== null && confidence < threshold ? { ...s, lowConfidence: true as const } : s;
      }),
      words: words?.map((w) => (w.confidence !== undefined && w.confidence < threshold ? { ...w, low_confidence: true as const } : w)) ?? null,
    },
  };
}

/** Pattern spans over a redaction say the class in its place: a span's text is the words it matched. */
export function redactedSpans(tally: PatternTally, report: RedactionReport, substitution: Substitution): PatternTally {
  const over = (start: number, end: number) => report.redactions.find((r) => r.start < end && r.end > start);
  return {
    ...tally,
    results: tally.results.map((r) => ({
      ...r,
      spans: r.spans.map((s) => {
        const hit = over(s.start, s.end);
        return hit ? { ...s, text: substitutionFor(hit.type, substitution), source: substitutionFor(hit.type, substitution) } : s;
      }),
    })),
  };
}
