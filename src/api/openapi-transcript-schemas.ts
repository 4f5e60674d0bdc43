// The contract's transcription resources as JSON Schema: the request forms, the inline answers in each
// format, their parts (segments, words, speakers, languages, vocabulary and pattern reports), the error
// envelope and the stream events.
import { LANGUAGE_SOURCES } from '../pipeline/language-stage.js';
import { MAX_LANGUAGE_HINTS } from '../pipeline/languages.js';
import { MAX_LISTED_SPANS, PATTERNS_SCHEMA } from '../pipeline/pattern-stage.js';
import { MAX_PATTERNS, MAX_PATTERNS_LENGTH } from '../pipeline/patterns.js';
import { DEFAULT_MAX_SPEAKERS, MAX_SPEAKERS, SPEAKER_CEILING_ACTIONS } from '../pipeline/speaker-attachment.js';
import { VOCABULARY_AUDIT_SCHEMA, VOCABULARY_MODES } from '../pipeline/vocabulary-audit.js';
import {
  INCLUDE_FIELD,
  INCLUDE_VALUES,
  KEYWORDS_FIELD,
  DEFAULT_PROFILE,
  DEFAULT_RESPONSE_FORMAT,
  PROFILES,
  RESPONSE_FORMATS,
  STREAMED_FORMATS,
  TIMESTAMP_GRANULARITIES,
  TIMESTAMP_GRANULARITIES_FIELD,
} from '../contract/transcription-request.js';
import { MAX_PROMPT_CHARACTERS } from '../contract/prompt-field.js';
import { MAX_KNOWN_SPEAKER_NAME_LENGTH, MAX_KNOWN_SPEAKERS } from '../contract/known-speaker-fields.js';
import { DEFAULT_TRANSLATION_FORMAT, TRANSLATION_FIELDS, TRANSLATION_FORMATS } from '../contract/translation-request.js';
import { MAX_TERMS, MAX_TERMS_SMALL } from '../pipeline/vocabulary-terms.js';
import { MAX_WEBHOOK_URL_LENGTH } from '../contract/webhook-url.js';
import { RUNTIME_NAME, STREAM_EVENT_TYPES } from '../contract/response-body.js';
import { API_ERROR_CODES } from './api-error.js';
import type { Schema } from './openapi-types.js';
import { MODEL_IDS } from '../domain/model-ids.js';
import { TURN_PAUSE_SECONDS } from '../engine/turn-pauses.js';
import { TASKS } from '../domain/tasks.js';
import { ref, AUDIO_FORMATS, LANGUAGE_TAG_PATTERN, string, integer, number, boolean, stringArray } from './openapi-schema-builders.js';

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

export const transcriptionRequest: Schema = {
  type: 'object',
  required: ['file', 'model'],
  properties: {
    file: string({
      format: 'binary',
      contentMediaType: 'application/octet-stream',
      description:
        `The audio: ${AUDIO_FORMATS}. At most 100,000,000 bytes; larger files use /v1/jobs. ` +
        `The bytes decide the container, not the file name or declared type.`,
    }),
    model: string({ enum: MODEL_IDS }),
    response_format: string({ enum: RESPONSE_FORMATS, default: DEFAULT_RESPONSE_FORMAT }),
    language: string({
      description:
        'A supported BCP-47 tag (family `xx` or regional `xx-YY`) or `auto` (each utterance detected). ' +
        "Omitted: the key's default language; without one, the dominant language is detected from the speech.",
      pattern: LANGUAGE_TAG_PATTERN,
      examples: ['en', 'en-GB', 'es-419', 'auto'],
    }),
    language_hints: string({
      description: 'JSON array string of 1 to 8 candidate BCP-47 tags. Valid only with `language=auto`.',
      contentMediaType: 'application/json',
      contentSchema: stringArray({ minItems: 1, maxItems: MAX_LANGUAGE_HINTS, uniqueItems: true }),
    }),
    diarize: boolean({ default: false, description: 'Attach speaker labels and word timestamps. Use with `response_format=verbose_json`.' }),
    min_speakers: integer({
      minimum: 1,
      maximum: MAX_SPEAKERS,
      default: 1,
      description: 'With `diarize`: the voices known to speak at least; the diarizer splits to that many when it finds them. Not above `max_speakers`.',
    }),
    max_speakers: integer({
      minimum: 1,
      maximum: MAX_SPEAKERS,
      default: DEFAULT_MAX_SPEAKERS,
      description: 'With `diarize`: the labelling ceiling (voices beyond it keep their times, unlabelled, `review_required`).',
    }),
    'known_speaker_names[]': {
      type: 'array',
      maxItems: MAX_KNOWN_SPEAKERS,
      items: string({ minLength: 1, maxLength: MAX_KNOWN_SPEAKER_NAME_LENGTH }),
      description:
        "OpenAI's parameter, repeated per name (or `known_speaker_names`, a JSON array), with `diarize`: up to 4 names, each paired with the " +
        'reference clip at the same position. A voice that matches a clip carries its name as `speaker`; the others keep letters, and a ' +
        'name is never given to a voice that does not match (`speaker_timing.known_speakers` says which matched and how strongly). ' +
        'A name is not a single capital letter nor `unknown`. Audio that becomes a job keeps them for its decoration.',
    },
    'known_speaker_references[]': {
      type: 'array',
      maxItems: MAX_KNOWN_SPEAKERS,
      items: string({ pattern: '^data:', description: 'A base64 data URL of audio in any format `file` takes.' }),
      description:
        "OpenAI's parameter, repeated per clip (or `known_speaker_references`, a JSON array): 2 to 10 s of the named person speaking alone, " +
        'each at most 1 MiB as sent. Silence, music or noise, a clip of two voices, or one too short or too long is refused (422).',
    },
    'known_speakers[]': {
      type: 'array',
      maxItems: MAX_KNOWN_SPEAKERS,
      items: string({ pattern: '^voice_[0-9A-Za-z]{24}$' }),
      description:
        "Ids of voices enrolled for the key's tenant (`POST /v1/voices`), repeated per id (or `known_speakers`, a JSON array), with `diarize`: " +
        'each names the voice that matches it, as `known_speaker_names[]` does; up to 4 known speakers in all. An unknown id, or another ' +
        "tenant's, is 422. Audio that becomes a job keeps the ids; a voice deleted before its decoration names nobody.",
    },
    [TIMESTAMP_GRANULARITIES_FIELD]: {
      type: 'array',
      items: string({ enum: TIMESTAMP_GRANULARITIES }),
      description:
        "OpenAI's parameter, repeated per value. `word` adds `words` (without needing `diarize`; not for Arabic or Hindi); " +
        '`segment` is always given. A single value may also come as `timestamp_granularities`. ' +
        'Needs `verbose_json` or `diarized_json`; other values are refused (422).',
    },
    dictionary: boolean({ default: true, description: "`false` suppresses the key's stored terms for this request." }),
    vocabulary: string({
      description: `JSON array string of exact expected terms, up to ${MAX_TERMS} (at most ${MAX_TERMS_SMALL} when the language is \`auto\`, Arabic or Hindi).`,
      contentMediaType: 'application/json',
      contentSchema: stringArray({ maxItems: MAX_TERMS }),
    }),
    patterns: string({
      maxLength: MAX_PATTERNS_LENGTH,
      description:
        `Comma-separated request-only structured-token expressions (PATTERNS.md), at most ${MAX_PATTERNS}; ` +
        `a comma inside brackets, braces or parentheses, or escaped, belongs to its pattern. ` +
        `Needs the \`patterns\` entitlement.`,
    }),
    webhook_url: string({
      format: 'uri',
      maxLength: MAX_WEBHOOK_URL_LENGTH,
      description: 'HTTPS, port 443. Forces asynchronous dispatch (202). Needs an active webhook signing secret on the key.',
    }),
    stream: boolean({
      default: false,
      description:
        `Answer with server-sent events (text/event-stream) as the text is decoded: ` +
        `\`transcript.text.delta\`, then \`transcript.text.segment\` per segment for \`diarized_json\`, then \`transcript.text.done\`. ` +
        `Needs response_format ${STREAMED_FORMATS.join(', ')}, audio within the inline boundary, no \`webhook_url\` and no \`include[]\` (422 otherwise).`,
    }),
    profile: string({
      enum: PROFILES,
      default: DEFAULT_PROFILE,
      description:
        '`standard` and `turbo` are deprecated aliases of `default` with identical behaviour; responses to them carry `Deprecation` and `Warning` headers.',
    }),
    prompt: string({
      maxLength: MAX_PROMPT_CHARACTERS,
      description: "OpenAI's parameter: text that guides the wording and style (VOCABULARY.md: prompted with the terms, under the same safety check).",
    }),
    keywords: string({
      description: "OpenAI's parameter, the same as `vocabulary` (send one of the two): a JSON array string of terms.",
      contentMediaType: 'application/json',
      contentSchema: stringArray({ maxItems: MAX_TERMS }),
    }),
    [KEYWORDS_FIELD]: { type: 'array', items: string(), description: "`keywords` as OpenAI's client sends an array: the field repeated per term." },
    temperature: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      default: 0,
      description: "OpenAI's parameter: whisper's first decoding temperature. 0 decodes deterministically (greedy or beam search); above 0 whisper samples.",
    },
    [INCLUDE_FIELD]: {
      type: 'array',
      items: string({ enum: INCLUDE_VALUES }),
      description:
        "OpenAI's parameter (`include` for a single value). `logprobs` adds `logprobs` to the `json` answer: " +
        "the decoder's tokens with their log-probability and bytes, before vocabulary corrections. " +
        'Needs `json` and an inline answer, and cannot be streamed (422 otherwise, as with `stream=true`).',
    },
    chunking_strategy: string({
      description:
        "OpenAI's parameter: `auto` (what the service always does: the VAD's speech regions decide the boundaries) " +
        'or a `server_vad` object, sent as `chunking_strategy[type]=server_vad` with `chunking_strategy[threshold]` (0-1, default 0.5), ' +
        '`chunking_strategy[prefix_padding_ms]` (default 300) and `chunking_strategy[silence_duration_ms]` (default 200), ' +
        "or as its JSON string: the VAD's threshold, padding and minimum silence for this request (jobs too).",
    }),
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
    confidence: { type: ['number', 'null'] },
    language: string(),
    review_required: boolean({ const: true, description: 'The voice is beyond `max_speakers`: unlabelled, to be reviewed.' }),
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
    speaker: string(),
    review_required: boolean({ const: true, description: 'Spoken by a voice beyond `max_speakers` (no `speaker`).' }),
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
  },
};

// OpenAI's stream events (CreateTranscriptionResponseStreamEvent), as this service sends them; a
// failure after the stream opened is sent as the error envelope, the last event.
export const transcriptionStreamEvent: Schema = {
  oneOf: [
    { type: 'object', required: ['type', 'delta'], properties: { type: string({ const: STREAM_EVENT_TYPES.delta }), delta: string() } },
    { $ref: '#/components/schemas/Segment' },
    { type: 'object', required: ['type', 'text'], properties: { type: string({ const: STREAM_EVENT_TYPES.done }), text: string() } },
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
  required: ['file', 'model'],
  description: "Whisper's translate task: English text. Not medically evaluated: review before clinical use.",
  properties: {
    ...Object.fromEntries(
      TRANSLATION_FIELDS.filter((f) => f !== 'response_format').map((f) => [f, (transcriptionRequest.properties as Record<string, Schema>)[f]]),
    ),
    file: (transcriptionRequest.properties as Record<string, Schema>).file,
    response_format: string({ enum: TRANSLATION_FORMATS, default: DEFAULT_TRANSLATION_FORMAT }),
    language: string({ description: 'The spoken language (a tag, or `auto`); omitted: as on transcriptions. The text is English.' }),
  },
};
