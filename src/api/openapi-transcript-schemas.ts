// The contract's transcription resources as JSON Schema: the request forms, the inline answers in each
// format, their parts (segments, words, speakers, languages, vocabulary and pattern reports), the error
// envelope and the stream events.
import { HEALTH_CLASSES, IDENTIFIER_CLASSES } from '../clinical-text/redaction-classes.js';
import { documentedFields, requiredFieldsOf } from '../contract/request-fields.js';
import { RUNTIME_NAME, STREAM_EVENT_TYPES } from '../contract/response-body.js';
import { MODEL_IDS } from '../domain/model-ids.js';
import { TASKS } from '../domain/tasks.js';
import { TURN_PAUSE_SECONDS } from '../engine/turn-pauses.js';
import { LANGUAGE_SOURCES } from '../pipeline/language-stage.js';
import { MAX_LISTED_SPANS, PATTERNS_SCHEMA } from '../pipeline/pattern-stage.js';
import { MAX_PATTERNS } from '../pipeline/patterns.js';
import { SPEAKER_CEILING_ACTIONS } from '../pipeline/speaker-attachment.js';
import { VOCABULARY_AUDIT_SCHEMA, VOCABULARY_MODES } from '../pipeline/vocabulary-audit.js';
import { API_ERROR_CODES } from './api-error.js';
import { AUDIO_FORMATS, boolean, integer, number, ref, string, stringArray } from './openapi-schema-builders.js';
import type { Schema } from './openapi-types.js';

export const errorEnvelope: Schema = {
  type: 'object',
  description: 'Every error uses this envelope and nothing else at the top level. Branch on `error.code`; `message` is a fixed server text.',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      additionalProperties: false,
      properties: { code: string({ enum: API_ERROR_CODES }), message: string() },
    },
  },
};

/** The upload form: the file, then the contract's fields as the form sends them (contract/request-fields.ts). */
export const transcriptionRequest: Schema = {
  type: 'object',
  required: ['file', ...requiredFieldsOf('transcriptions')],
  properties: {
    file: string({
      format: 'binary',
      contentMediaType: 'application/octet-stream',
      description:
        `The audio: ${AUDIO_FORMATS}. At most 100,000,000 bytes; larger files use /v1/jobs. ` +
        `The bytes decide the container, not the file name or declared type.`,
    }),
    ...documentedFields('transcriptions', 'form'),
  },
};

export const segment: Schema = {
  type: 'object',
  required: ['id', 'speaker', 'text', 'start', 'end'],
  properties: {
    type: string({ const: STREAM_EVENT_TYPES.segment, description: "OpenAI's diarized segment type." }),
    id: string(),
    speaker: string(),
    text: string(),
    start: number({ description: 'seconds' }),
    end: number({ description: 'seconds' }),
    confidence: {
      type: ['number', 'null'],
      description: "The mean probability the decoder gave the segment's text tokens: a model probability, not a calibrated accuracy; null without tokens.",
    },
    low_confidence: boolean({ const: true, description: 'With `confidence_threshold`: its confidence is below it.' }),
    language: string(),
    review_required: boolean({ const: true, description: 'The voice is beyond `max_speakers`: unlabelled, to be reviewed.' }),
    channel: integer({ minimum: 0, description: 'With `multichannel`: the channel (0-based) it was heard on; `speaker` names it (`channel_0`).' }),
    // OpenAI's TranscriptionSegment fields (src/pipeline/openai-segment-fields.ts says how each is computed).
    seek: integer({ description: 'The start in 10 ms frames.' }),
    tokens: { type: 'array', items: integer(), description: "The decoder's token ids (special tokens included), before vocabulary corrections." },
    temperature: number({ description: 'The temperature decoding began at (whisper.cpp does not report a fallback).' }),
    avg_logprob: number({ description: "Mean log-probability of the segment's tokens." }),
    compression_ratio: number({ description: 'UTF-8 length over zlib-compressed length; above 2.4 suggests a repetitive, hallucinated text.' }),
    no_speech_prob: number({ description: "Whisper's probability that the window held no speech." }),
  },
};

export const word: Schema = {
  type: 'object',
  required: ['word', 'start', 'end'],
  properties: {
    word: string(),
    start: number({ description: 'seconds' }),
    end: number({ description: 'seconds' }),
    confidence: number({
      minimum: 0,
      maximum: 1,
      description: "The mean probability the decoder gave the word's tokens: a model probability, not a calibrated accuracy.",
    }),
    speaker: string(),
    review_required: boolean({ const: true, description: 'Spoken by a voice beyond `max_speakers` (no `speaker`).' }),
    low_confidence: boolean({ const: true, description: 'With `confidence_threshold`: its confidence is below it.' }),
    channel: integer({ minimum: 0, description: 'With `multichannel`: the channel (0-based) it was heard on.' }),
  },
};

export const languageDetection: Schema = {
  type: 'object',
  required: ['mode', 'candidates', 'languages', 'utterances', 'fallbacks'],
  properties: {
    mode: string({ const: 'per_utterance' }),
    candidates: stringArray(),
    requested_candidates: stringArray(),
    languages: stringArray(),
    utterances: integer(),
    fallbacks: integer({ const: 0 }),
  },
};

export const vocabularyAudit: Schema = {
  type: 'object',
  required: ['enabled', 'mode', 'requested_terms', 'applied_terms', 'suspect_insertions', 'safety_fallback'],
  properties: {
    enabled: boolean(),
    mode: string({ enum: VOCABULARY_MODES }),
    requested_terms: integer(),
    applied_terms: integer({ deprecated: true, description: 'Deprecated alias of the delivered outcome; never prompt coverage.' }),
    suspect_insertions: integer(),
    safety_fallback: boolean(),
    language: string(),
    schema: string({ const: VOCABULARY_AUDIT_SCHEMA }),
    delivered_terms: stringArray({ description: 'Requested terms present in the transcript.' }),
    delivered: { deprecated: true, description: 'Alias of `delivered_terms`.' },
    corrected_terms: stringArray({ description: 'Conservative caller-owned surface corrections.' }),
    corrections_applied: { deprecated: true, description: 'Alias of `corrected_terms`.' },
    unresolved_terms: stringArray({ description: 'Terms still absent from the transcript.' }),
    unresolved: { deprecated: true, description: 'Alias of `unresolved_terms`.' },
    prompt_status: string({ description: 'Request coverage.' }),
    prompted_terms: integer(),
    prompted_chunks: integer(),
    fallback_chunks: integer(),
    dropped: stringArray({ description: 'Reserved for terms rejected before decoding.' }),
  },
};

export const patternsReport: Schema = {
  type: 'object',
  description:
    'What the request-only patterns matched (PATTERNS.md); present when `patterns` was sent. Patterns are named by their place in the request, never echoed.',
  required: ['schema', 'requested', 'matches', 'results', 'budget_exhausted'],
  properties: {
    schema: string({ const: PATTERNS_SCHEMA }),
    requested: integer({ maximum: MAX_PATTERNS }),
    matches: integer({ description: 'Matches over all patterns.' }),
    results: {
      type: 'array',
      items: {
        type: 'object',
        required: ['index', 'count', 'spans', 'spans_truncated'],
        properties: {
          index: integer({ description: "The pattern's place in the request's list, from 0." }),
          count: integer(),
          spans: {
            type: 'array',
            maxItems: MAX_LISTED_SPANS,
            items: {
              type: 'object',
              required: ['start', 'end', 'text', 'source'],
              properties: {
                start: number({ description: 'seconds' }),
                end: number({ description: 'seconds' }),
                text: string({ description: 'The transcript text as the pattern formatted it.' }),
                source: string({ description: 'The transcript text it replaced.' }),
              },
            },
          },
          spans_truncated: boolean({ description: `More than ${MAX_LISTED_SPANS} matches: \`count\` is complete, \`spans\` lists the first.` }),
        },
      },
    },
    budget_exhausted: integer({ description: 'Segment searches stopped by the linear work budget before the segment ended (0 in practice).' }),
  },
};

export const speakerTiming: Schema = {
  type: 'object',
  properties: {
    word_timing: boolean(),
    speaker_ceiling_reached: boolean(),
    requested_max_speakers: { type: ['integer', 'null'] },
    detected_speaker_count: integer(),
    speaker_ceiling_action: string({ enum: SPEAKER_CEILING_ACTIONS }),
    known_speakers: {
      type: 'array',
      description: 'With known speakers: each name in the order sent, whether a voice matched it, and how strongly.',
      items: {
        type: 'object',
        required: ['name', 'matched', 'similarity'],
        properties: {
          name: string(),
          matched: boolean(),
          similarity: {
            type: ['number', 'null'],
            minimum: 0,
            maximum: 1,
            description:
              'The matched voice, or the nearest voice when none matched: 1 identical, 0.5 the threshold of a match, 0 far apart; ' +
              'null when no voice had enough speech to compare.',
          },
        },
      },
    },
  },
};

export const metadata: Schema = {
  type: 'object',
  properties: {
    api_version: string(),
    runtime: string({ const: RUNTIME_NAME }),
    processing_ms: { type: 'object', properties: { asr: integer(), diarization: integer() } },
    model_build: string(),
  },
};

/** The `json` answer: closed, so a verbose answer (which requires `task`) can never match it too. */
/** With `redact`: where something was removed and how many of each class, never what (docs/API.md "Redaction"). */
export const redactionFields: Record<string, Schema> = {
  redactions: {
    type: 'array',
    description: 'With `redact`: each redaction, in seconds of the audio; its words were replaced by the substitution.',
    items: {
      type: 'object',
      required: ['type', 'start', 'end'],
      additionalProperties: false,
      properties: { type: string({ enum: [...IDENTIFIER_CLASSES, ...HEALTH_CLASSES] }), start: number(), end: number() },
    },
  },
  redaction_counts: {
    type: 'object',
    description: 'With `redact`: how many redactions of each class.',
    additionalProperties: integer({ minimum: 1 }),
  },
};

export const transcriptionJson: Schema = {
  type: 'object',
  required: ['text'],
  additionalProperties: false,
  properties: {
    text: string(),
    logprobs: {
      type: 'array',
      description: "With `include[]=logprobs`: the decoder's text tokens in order.",
      items: {
        type: 'object',
        required: ['token', 'logprob', 'bytes'],
        properties: { token: string(), logprob: { type: 'number' }, bytes: { type: 'array', items: { type: 'integer', minimum: 0, maximum: 255 } } },
      },
    },
    ...redactionFields,
  },
};

// OpenAI's stream events (CreateTranscriptionResponseStreamEvent), as this service sends them; a
// failure after the stream opened is sent as the error envelope, the last event.
export const transcriptionStreamEvent: Schema = {
  oneOf: [
    { type: 'object', required: ['type', 'delta'], properties: { type: string({ const: STREAM_EVENT_TYPES.delta }), delta: string() } },
    { $ref: '#/components/schemas/Segment' },
    {
      type: 'object',
      required: ['type', 'text'],
      properties: { type: string({ const: STREAM_EVENT_TYPES.done }), text: string(), ...redactionFields },
    },
    { $ref: '#/components/schemas/Error' },
  ],
  description: 'One `data:` line per event. A failure after the stream opened is the last event: the error envelope.',
};

export const transcriptionVerboseJson: Schema = {
  type: 'object',
  description: 'The `verbose_json` shape, also returned for the historical `diarized_json`.',
  required: ['task', 'text', 'language', 'segments'],
  properties: {
    task: string({ enum: TASKS, description: "OpenAI's `task`: `translate` on /v1/audio/translations." }),
    source_language: string({ description: "Translations: the spoken language (`language` is then `en`, the text's)." }),
    text: string(),
    language: string({ description: 'Effective language: `mixed` for multilingual auto, `und` for silence.' }),
    language_source: string({
      enum: LANGUAGE_SOURCES,
      description: '`requested` (given), `default` (the key default, or nothing was said), `detected` (`auto`, or omitted without a key default).',
    }),
    duration: number({ description: 'seconds' }),
    model: string({ enum: MODEL_IDS }),
    request_id: string({ description: 'Give this to support.' }),
    segments: { type: 'array', items: ref('Segment') },
    words: { type: 'array', items: ref('Word'), description: 'Present when word alignment is available.' },
    speakers: {
      type: 'array',
      items: { type: 'object', required: ['speaker'], properties: { speaker: string() } },
      description: "Labelled voices (anonymous, session-local: `A`, `B`, ..., or a known speaker's name), at most `max_speakers`.",
    },
    speaker_segments: {
      type: 'array',
      items: {
        type: 'object',
        required: ['speaker', 'start', 'end'],
        properties: {
          speaker: string(),
          start: number({ description: 'seconds' }),
          end: number({ description: 'seconds' }),
          review_required: boolean({ const: true }),
        },
      },
      description:
        `Acoustic speaker intervals, each holding its talker's pauses of up to ${TURN_PAUSE_SECONDS} s; ` +
        'the only ownership when word timing is unavailable (Arabic, Hindi).',
    },
    speaker_timing: ref('SpeakerTiming'),
    language_detection: ref('LanguageDetection'),
    vocabulary: ref('VocabularyAudit'),
    patterns: ref('PatternsReport'),
    ...redactionFields,
    metadata: ref('Metadata'),
    usage: {
      type: 'object',
      required: ['type', 'seconds'],
      properties: { type: string({ const: 'duration' }), seconds: integer({ description: 'Whole seconds of audio, rounded up.' }) },
      description: "OpenAI's duration usage.",
    },
  },
};

export const translationRequest: Schema = {
  type: 'object',
  required: ['file', ...requiredFieldsOf('translations')],
  description: "Whisper's translate task: English text. Not medically evaluated: review before clinical use.",
  properties: { file: (transcriptionRequest.properties as Record<string, Schema>).file, ...documentedFields('translations', 'form') },
};
