// The inline response in each format: `text` (plain), `json` ({text}) and the verbose shape shared by
// `verbose_json` and `diarized_json`, with every required field of the contract.
import type { ModelId, ResponseFormat } from './transcription-request.js';
import type { TranscriptionOutcome } from './run-transcription.js';
import { disabledVocabularyAudit } from './vocabulary-audit.js';
import { wordsFromSegments } from './words.js';

export const API_VERSION = '2026-07-27';
/** Speakers are not attributed yet (diarization attaches them); segments say so rather than guess. */
export const UNATTRIBUTED_SPEAKER = 'unknown';

export interface ResponseContext {
  requestId: string;
  model: ModelId;
  modelBuild: string;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

export function verboseBody(outcome: TranscriptionOutcome, ctx: ResponseContext) {
  const segments = outcome.segments
    .filter((s) => s.text.trim() !== '')
    .map((s, i) => {
      const textTokens = s.tokens.filter((t) => !t.special);
      const confidence = textTokens.length ? textTokens.reduce((a, t) => a + t.p, 0) / textTokens.length : null;
      return {
        id: `seg_${i}`,
        speaker: UNATTRIBUTED_SPEAKER,
        text: s.text.trim(),
        start: round3(s.start),
        end: round3(s.end),
        confidence: confidence === null ? null : round3(confidence),
        language: s.language,
      };
    });
  return {
    text: outcome.text,
    language: outcome.language,
    language_source: outcome.languageSource,
    duration: round3(outcome.durationSeconds),
    model: ctx.model,
    request_id: ctx.requestId,
    segments,
    ...(outcome.wordTiming ? { words: wordsFromSegments(outcome.segments).map((w) => ({ ...w, start: round3(w.start), end: round3(w.end) })) } : {}),
    speakers: [] as Array<{ speaker: string }>,
    speaker_segments: [] as unknown[],
    speaker_timing: {
      word_timing: outcome.wordTiming,
      speaker_ceiling_reached: false,
      requested_max_speakers: null,
      detected_speaker_count: 0,
      speaker_ceiling_action: 'none',
    },
    ...(outcome.detection ? { language_detection: outcome.detection } : {}),
    vocabulary: outcome.vocabulary ?? disabledVocabularyAudit(outcome.language),
    metadata: {
      api_version: API_VERSION,
      runtime: 'svc-runtime',
      processing_ms: { asr: outcome.asrMs, diarization: 0 },
      model_build: ctx.modelBuild,
    },
  };
}

export function responseBody(outcome: TranscriptionOutcome, format: ResponseFormat, ctx: ResponseContext): { contentType: string; body: string } {
  if (format === 'text') return { contentType: 'text/plain; charset=utf-8', body: outcome.text };
  if (format === 'json') return { contentType: 'application/json; charset=utf-8', body: JSON.stringify({ text: outcome.text }) };
  return { contentType: 'application/json; charset=utf-8', body: JSON.stringify(verboseBody(outcome, ctx)) };
}
