// What a job's final result is built from besides its transcript (job-transcript.ts finalResult): the
// decisions carried over its chunks, the request, and the key's dictionary for the vocabulary audit.
// Shared by the succeeding chunk and the decoration, which rebuilds the result with speakers.
import { API_VERSION } from '../contract/response-body.js';
import { isLanguageFamily } from '../domain/language-families.js';
import type { ModelId } from '../domain/model-ids.js';
import { emptyPatternTally } from '../pipeline/pattern-stage.js';
import { EMPTY_TALLY } from '../pipeline/prompted-recognition.js';
import { planVocabulary, prompts } from '../pipeline/vocabulary-audit.js';
import { vocabularyLanguageOf } from '../pipeline/vocabulary-terms.js';
import type { JobRecord } from '../store/job-store.js';
import type { KeyStore } from '../store/key-store.js';
import type { CarryOver } from './job-carry-over.js';
import { finalSource } from './job-language.js';
import type { StoredJobRequest } from './job-request.js';
import type { FinalContext } from './job-transcript.js';

function vocabularyOf(request: StoredJobRequest, dictionary: string[], carry: CarryOver): FinalContext['vocabulary'] {
  const plan = planVocabulary(request.vocabulary, dictionary, vocabularyLanguageOf(request.language), request.prompt);
  return prompts(plan) ? { plan, tally: carry.vocabulary ?? EMPTY_TALLY } : null;
}

export async function finalContextOf(
  job: JobRecord,
  request: StoredJobRequest,
  carry: CarryOver,
  deps: { keys: KeyStore; modelBuilds: Record<ModelId, string> },
): Promise<FinalContext> {
  const families = carry.language.detection?.languages ?? (carry.language.choice?.mode === 'explicit' ? [carry.language.choice.tag] : []);
  const requestedFamily = request.language.mode === 'explicit' ? [request.language.language.family] : [];
  const dictionary = request.dictionary
    ? [
        ...new Set(
          (
            await Promise.all([...requestedFamily, ...families].map((f) => (isLanguageFamily(f) ? deps.keys.getDictionary(job.keyId, f) : Promise.resolve([]))))
          ).flat(),
        ),
      ]
    : [];
  return {
    jobId: job.id,
    model: request.model,
    modelBuild: deps.modelBuilds[request.model],
    task: request.task,
    format: request.responseFormat,
    languageSource: finalSource(carry.language, request.language),
    detection: carry.language.detection,
    wordTiming: carry.wordTiming,
    durationSeconds: carry.endSeconds ?? job.completedAudioSeconds,
    asrMs: carry.asrMs,
    vocabulary: vocabularyOf(request, dictionary, carry),
    // A job whose chunks were all silent still reports its patterns, with no matches.
    patterns: request.patterns.length > 0 ? (carry.patterns ?? emptyPatternTally(request.patterns.length)) : null,
    speakerTiming: carry.speakerTiming ?? {
      word_timing: false,
      speaker_ceiling_reached: false,
      requested_max_speakers: null,
      detected_speaker_count: 0,
      speaker_ceiling_action: 'none',
    },
    apiVersion: API_VERSION,
  };
}
