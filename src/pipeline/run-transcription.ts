// PCM in, a decided transcript out: the pipeline's stages in order over one stretch of decoded audio
// (a whole inline request, one chunk of a job, a CLI file): speech → language → recognise. Decoding
// comes before (the caller owns the audio source) and shaping after (response-body.ts, job-transcript.ts).
// No HTTP here: refusals are the pipeline's own errors (pipeline-errors.ts).
import type { TranscriptRedaction } from '../clinical-text/redact-transcript.js';
import type { RedactionClass } from '../clinical-text/redaction-classes.js';
import { SAMPLE_RATE } from '../domain/audio-format.js';
import { type LanguageFamily } from '../domain/language-families.js';
import type { Task } from '../domain/tasks.js';
import type { TranscribeOptions } from '../engine/engine.js';
import { noSpeakers } from '../engine/speaker-diarizer.js';
import type { VadParams } from '../engine/vad-params.js';
import type { LanguageEvidence } from './language-runs.js';
import {
  type DetectLanguage,
  type LanguageChoice,
  type LanguageDetectionBlock,
  type LanguagePlan,
  type LanguageSource,
  noSpeechLanguage,
  planLanguage,
} from './language-stage.js';
import { WORD_TIMING_FAMILIES } from './languages.js';
import { emptyPatternTally, type PatternTally } from './pattern-stage.js';
import { patternPrograms } from './patterns.js';
import type { PipelineStages } from './pipeline-engine.js';
import { EMPTY_TALLY, type VocabularyTally } from './prompted-recognition.js';
import { recogniseRuns } from './recognise-stage.js';
import { type RecognisedSegment, type Transcribe } from './recognised-segment.js';
import { attachSpeakers, DEFAULT_MAX_SPEAKERS, type SpeakerAttachment, unattributed } from './speaker-attachment.js';
import type { Diarize } from './speaker-stage.js';
import { type SpeechRegion, speechSecondsOf } from './speech-regions.js';
import { type DetectSpeech, findSpeech } from './speech-stage.js';
import type { TextDelta } from './text-deltas.js';
import { auditVocabulary, planVocabulary, prompts, type VocabularyAudit, type VocabularyPlan } from './vocabulary-audit.js';
import { vocabularyLanguageOf } from './vocabulary-terms.js';
import type { KnownSpeaker } from './voice-matching.js';
export type { LanguageDetectionBlock, LanguageSource };

/** The language reported for audio without speech. */
export const NO_SPEECH_LANGUAGE = 'und';

export interface TranscriptionOutcome {
  text: string;
  /** In the audio's own time (seconds from the start of the PCM given). */
  segments: RecognisedSegment[];
  durationSeconds: number;
  /** The effective language reported to the client: a tag, `mixed`, or `und` when nothing was said. */
  language: string;
  /** The language runs' families in order of first appearance (empty without speech). */
  families: LanguageFamily[];
  languageSource: LanguageSource;
  /** Present for `auto` (also on silence: no utterances) and when detection decided an omitted language. */
  detection: LanguageDetectionBlock | null;
  /** What unhinted `auto` detection established up to the end of this stretch (null otherwise): a job's next chunk's `languageBefore`. */
  languageEvidence: LanguageEvidence | null;
  /** The vocabulary audit; null when neither terms nor a prompt were given. */
  vocabulary: VocabularyAudit | null;
  /** What prompting did over this stretch (a job sums it over chunks); null without a prompt. */
  vocabularyTally: VocabularyTally | null;
  /** What the request's patterns matched and formatted; null without patterns. */
  patterns: PatternTally | null;
  /** Word timestamps are available (requested, by diarize or word granularity, and the languages have them). */
  wordTiming: boolean;
  /** Segments with their speakers (split at changes of voice when diarized), words, speakers. */
  speakers: SpeakerAttachment;
  /** `channels`: a multichannel recording's speech regions by channel (a job diarizes each channel later). */
  speech: { regions: SpeechRegion[]; seconds: number; channels?: SpeechRegion[][] };
  asrMs: number;
  /** Time spent diarizing (0 when not requested). */
  diarizationMs: number;
  /** The temperature decoding began at (the request's; 0 by default). */
  temperature: number;
  /** What was asked: the spoken language's text, or its English translation. */
  task: Task;
  /** What redaction removed (clinical-text-stage.ts); absent or null when it was not asked. */
  redaction?: RedactionReport | null;
}

/** What redaction removed: where (seconds) and how many of each class, never what. */
export interface RedactionReport {
  redactions: TranscriptRedaction[];
  counts: Partial<Record<RedactionClass, number>>;
}

/** What the stages need of the request. */
export interface PipelineRequest {
  language: LanguageChoice;
  dictionary: boolean;
  vocabulary: string[];
  /** OpenAI's `prompt`: whisper's initial prompt ahead of the terms, under the same safety check. */
  prompt?: string | null;
  diarize: boolean;
  /** Labelling ceiling for diarization (default 4). */
  maxSpeakers?: number;
  /** Voices the diarizer splits to at least, when it finds them (default 1). */
  minSpeakers?: number;
  /** `timestamp_granularities[]` includes `word`: words without diarize. */
  wordTimestamps?: boolean;
  /** Request-only structured-token patterns (patterns.ts), already validated. */
  patterns?: readonly string[];
  /** Whisper's first decoding temperature (OpenAI's `temperature`, 0 to 1); 0 by default. */
  temperature?: number;
  /** The request's VAD parameters (OpenAI's chunking_strategy server_vad); null or absent: the defaults. */
  vad?: Partial<VadParams> | null;
  /** `translate`: whisper decodes the speech as English text (default `transcribe`). */
  task?: Task;
  /** With diarize: names for the voices that match them (voice-matching.ts). */
  knownSpeakers?: readonly KnownSpeaker[];
}

export interface DecodingSettings {
  beamSize: number;
  maxTokens: number;
  temperatureFallback: boolean;
}

export interface RunTranscriptionDeps {
  transcribe: Transcribe;
  detectLanguage: DetectLanguage;
  /** The VAD; null runs without one (all audio is speech). */
  detectSpeech: DetectSpeech | null;
  /** The diarizer; absent where speakers are attached later (a long job's decoration). */
  diarize?: Diarize;
  decoding: DecodingSettings;
  sampleRate: number;
  /** The key's stored dictionary for a language family. */
  dictionaryFor: (family: LanguageFamily) => Promise<string[]>;
}

/**
 * The one place a transcription's dependencies are put together (the inline route, a job's chunk, the
 * library): its model's stages for this piece of work, the decoding settings, and where the key's
 * stored dictionary comes from (none for the library, which has no keys).
 */
export function transcriptionDeps(
  stages: PipelineStages,
  decoding: DecodingSettings,
  dictionaryFor: RunTranscriptionDeps['dictionaryFor'] = async () => [],
): RunTranscriptionDeps {
  return { ...stages, decoding, sampleRate: SAMPLE_RATE, dictionaryFor };
}

export interface RunOptions {
  signal?: AbortSignal;
  /** Speech regions already found in this PCM (a job finds them to choose its cut): not searched again. */
  regions?: SpeechRegion[];
  /** The text as it is decoded, as deltas that add up to the outcome's text (recognise-stage.ts). */
  onTextDelta?: TextDelta;
  /** Unhinted `auto`: what detection established on the recording before this stretch (a job's earlier chunks). */
  languageBefore?: LanguageEvidence;
}

export async function runTranscription(
  pcm: Float32Array,
  request: PipelineRequest,
  deps: RunTranscriptionDeps,
  options: RunOptions = {},
): Promise<TranscriptionOutcome> {
  const started = performance.now();
  const { signal } = options;
  const durationSeconds = pcm.length / deps.sampleRate;
  const regions = options.regions ?? (await findSpeech(pcm, deps.sampleRate, deps.detectSpeech, signal, request.vad));
  const speech = { regions, seconds: speechSecondsOf(regions) };

  // Silence costs nothing and says nothing: no language call, no recogniser call.
  const plan: LanguagePlan | null =
    regions.length === 0
      ? null
      : await planLanguage({
          choice: request.language,
          pcm,
          sampleRate: deps.sampleRate,
          regions,
          detect: deps.detectLanguage,
          signal,
          ...(options.languageBefore ? { before: options.languageBefore } : {}),
        });
  const families = plan ? [...new Set(plan.runs.map((r) => r.language))] : [];
  const dictionary = request.dictionary ? [...new Set((await Promise.all(families.map((f) => deps.dictionaryFor(f)))).flat())] : [];
  const vocabularyPlan: VocabularyPlan = planVocabulary(request.vocabulary, dictionary, vocabularyLanguageOf(request.language), request.prompt ?? null);
  const prompted = prompts(vocabularyPlan);
  const wantsWords = request.diarize || request.wordTimestamps === true;
  const wordTiming = wantsWords && families.every((f) => WORD_TIMING_FAMILIES.includes(f));
  const programs = patternPrograms(request.patterns ?? []);

  const recognised = plan
    ? await recogniseRuns({
        pcm,
        sampleRate: deps.sampleRate,
        runs: plan.runs,
        optionsFor: (family) => ({
          ...decodingOptions(family, deps.decoding, wantsWords, request.temperature ?? 0),
          ...(request.task === 'translate' ? { translate: true } : {}),
        }),
        transcribe: deps.transcribe,
        ...(prompted ? { prompting: { terms: vocabularyPlan.terms, prompt: vocabularyPlan.prompt, wordTiming: wordTiming } } : {}),
        patterns: programs,
        signal,
        ...(options.onTextDelta ? { onTextDelta: options.onTextDelta } : {}),
      })
    : {
        text: '',
        segments: [],
        droppedSegments: 0,
        engineCalls: 0,
        vocabulary: prompted ? EMPTY_TALLY : null,
        patterns: programs.length > 0 ? emptyPatternTally(programs.length) : null,
      };

  const language = recognised.text === '' || !plan ? NO_SPEECH_LANGUAGE : plan.language;
  // Without speech nothing is detected, but a detecting choice still says so (noSpeechLanguage).
  const reported = plan ? { source: plan.source, detection: plan.detection } : noSpeechLanguage(request.language);
  const asrMs = Math.round(performance.now() - started);

  // Speakers over the whole stretch at once, so a voice keeps one label throughout.
  let speakers = unattributed(recognised.segments, wordTiming);
  let diarizationMs = 0;
  if (request.diarize && deps.diarize) {
    const diarizeStarted = performance.now();
    const diarization = regions.length === 0 ? noSpeakers() : await deps.diarize(pcm, regions, signal, { minVoices: request.minSpeakers });
    const maxSpeakers = request.maxSpeakers ?? DEFAULT_MAX_SPEAKERS;
    speakers = attachSpeakers({ segments: recognised.segments, diarization, wordTiming, maxSpeakers, knownSpeakers: request.knownSpeakers });
    diarizationMs = Math.round(performance.now() - diarizeStarted);
  }
  return {
    text: recognised.text,
    segments: recognised.segments,
    durationSeconds,
    language,
    families,
    languageSource: reported.source,
    detection: reported.detection,
    languageEvidence: plan ? plan.evidence : (options.languageBefore ?? null),
    vocabulary: prompted ? auditVocabulary(vocabularyPlan, recognised.vocabulary ?? EMPTY_TALLY, recognised.text, language) : null,
    vocabularyTally: recognised.vocabulary,
    patterns: recognised.patterns,
    wordTiming,
    speakers,
    speech,
    asrMs,
    diarizationMs,
    temperature: request.temperature ?? 0,
    task: request.task ?? 'transcribe',
  };
}

function decodingOptions(family: LanguageFamily, decoding: DecodingSettings, wantsWords: boolean, temperature: number): TranscribeOptions {
  return {
    language: family,
    // Above 0 whisper samples (and falls back from there, if fallback is on); 0 is greedy or beam search.
    ...(temperature > 0 ? { temperature } : {}),
    strategy: decoding.beamSize > 1 ? 'beam' : 'greedy',
    beamSize: Math.max(1, decoding.beamSize),
    ...(decoding.maxTokens > 0 ? { maxTokens: decoding.maxTokens } : {}),
    ...(decoding.temperatureFallback ? {} : { temperatureInc: 0 }),
    tokenTimestamps: wantsWords && WORD_TIMING_FAMILIES.includes(family),
  };
}
