// The contract's request fields, each declared once (issue 44.1): its JSON Schema (type, limits,
// default, description), the requests that take it, and the entitlement it needs. The parsers take
// their lists of known fields from here, and the OpenAPI document its request schemas: the job body's
// as declared, the upload form's derived (a `form: 'json'` field is sent on the form as JSON text).
// A route may add to a field's schema (its own default or wording); a field a route takes under an
// `'alias'` is accepted there and documented under the name it is an alias of.
import { REDACTION_FILLS, TONE_HZ } from '../audio/index.js';
import { SUBSTITUTIONS } from '../clinical-text/redaction-classes.js';
import type { Entitlement } from '../domain/api-keys.js';
import { SAMPLE_RATE } from '../domain/audio-format.js';
import { LANGUAGE_FAMILIES } from '../domain/language-families.js';
import { FLAGSHIP_MODEL, JOB_MODEL, MODEL_IDS } from '../domain/model-ids.js';
import { MAX_CHANNELS } from '../pipeline/channel-tracks.js';
import { MAX_LANGUAGE_HINTS } from '../pipeline/languages.js';
import { MAX_PATTERNS, MAX_PATTERNS_LENGTH } from '../pipeline/patterns.js';
import { DEFAULT_MAX_SPEAKERS, MAX_SPEAKERS } from '../pipeline/speaker-attachment.js';
import { MAX_TERM_LENGTH, MAX_TERMS, MAX_TERMS_SMALL } from '../pipeline/vocabulary-terms.js';
import { REDACT_OUTPUTS } from './clinical-text-fields.js';
import { boolean, integer, LANGUAGE_TAG_PATTERN, type Schema, string, stringArray } from './json-schema.js';
import { MAX_KNOWN_SPEAKER_NAME_LENGTH, MAX_KNOWN_SPEAKERS } from './known-speaker-fields.js';
import { MAX_PROMPT_CHARACTERS } from './prompt-field.js';
import { MAX_WEBHOOK_URL_LENGTH } from './webhook-url.js';

/** The HTTP requests that take fields: the direct upload's form, the translation form, the job body. */
export const REQUEST_ROUTES = ['transcriptions', 'translations', 'jobs'] as const;
export type RequestRoute = (typeof REQUEST_ROUTES)[number];
/** Every request that takes fields: the HTTP ones and the realtime `start` message (a JSON object, as the job body). */
export type FieldRoute = RequestRoute | 'realtime';

/** The realtime events' schema, named by `start` and `ready` (docs/DESIGN.md "Interfaces that scripts rely on"). */
export const REALTIME_EVENT_SCHEMA = 'svc-agent-v1';
/** A realtime session's id, chosen by its client. */
export const SESSION_ID_PATTERN = '^[A-Za-z0-9._:-]{1,128}$';

export const RESPONSE_FORMATS = ['verbose_json', 'json', 'text', 'diarized_json', 'srt', 'vtt'] as const;
export type ResponseFormat = (typeof RESPONSE_FORMATS)[number];
/** The inline route's format when none is sent (the contract's), and a job's (OpenAI's). */
export const DEFAULT_RESPONSE_FORMAT: ResponseFormat = 'diarized_json';
export const DEFAULT_JOB_RESPONSE_FORMAT: ResponseFormat = 'json';
/** OpenAI's translation formats: no diarized_json (translations carry no speakers). */
export const TRANSLATION_FORMATS = ['json', 'text', 'srt', 'verbose_json', 'vtt'] as const satisfies readonly ResponseFormat[];
export const DEFAULT_TRANSLATION_FORMAT = 'json' satisfies (typeof TRANSLATION_FORMATS)[number];
/** The formats that carry segments and speakers: diarize and word timestamps need one. */
export const SEGMENT_FORMATS: readonly ResponseFormat[] = ['verbose_json', 'diarized_json', 'srt', 'vtt'];
/** The formats a streamed answer has events for: text deltas and done, plus segments for diarized_json. */
export const STREAMED_FORMATS: readonly ResponseFormat[] = ['json', 'text', 'diarized_json'];

export const PROFILES = ['default', 'standard', 'turbo'] as const;
export type Profile = (typeof PROFILES)[number];
export const DEFAULT_PROFILE: Profile = 'default';
/** Aliases of `default` that still work, announced as deprecated on the response (docs/DESIGN.md decision 6). */
export const DEPRECATED_PROFILES: readonly Profile[] = PROFILES.filter((p) => p !== DEFAULT_PROFILE);
/** OpenAI's `timestamp_granularities[]`: `segment` is always given; `word` adds `words`. */
export const TIMESTAMP_GRANULARITIES = ['word', 'segment'] as const;
/** OpenAI's `include[]`: extra response content; `logprobs` gives the decoder's token log-probabilities (json). */
export const INCLUDE_VALUES = ['logprobs'] as const;

/**
 * The multipart route's fields are strings; a field sent several times under a name ending in `[]`
 * (OpenAI's array convention) arrives as the JSON array of its values.
 */
export const TIMESTAMP_GRANULARITIES_FIELD = 'timestamp_granularities[]';
/** OpenAI's `keywords` as its client sends an array. */
export const KEYWORDS_FIELD = 'keywords[]';
export const INCLUDE_FIELD = 'include[]';

export const MAX_JOB_UPLOAD_BYTES = 1_073_741_824;
export const MAX_FILENAME = 255;
export const MAX_CONTENT_TYPE = 100;

export interface RequestField {
  /** The value as JSON carries it (the job body); the form's is derived from it. */
  schema: Schema;
  /** The routes that take it: `true`, keywords added to the schema there, or `'alias'` (documented under another name). */
  routes: Partial<Record<FieldRoute, true | Schema | 'alias'>>;
  /** `json`: the form sends the value as JSON text (an array, say); otherwise as the value itself. */
  form?: 'json';
  /** Entitlement a request needs to use the field (requireEntitlements in request-entitlements.ts says when). */
  entitlement?: Entitlement;
  /** The routes that require it. */
  required?: readonly FieldRoute[];
}

const everyForm = { transcriptions: true, translations: true } as const;
const knownSpeakerIds: Schema = { type: 'array', maxItems: MAX_KNOWN_SPEAKERS, items: string({ pattern: '^voice_[0-9A-Za-z]{24}$' }) };
const terms: Schema = { type: 'array', items: string({ maxLength: MAX_TERM_LENGTH }), maxItems: MAX_TERMS };

export const REQUEST_FIELDS = {
  // The realtime start's own fields (REALTIME.md "The flow"); the rest of its fields are shared below.
  type: { schema: string({ const: 'start' }), required: ['realtime'], routes: { realtime: true } },
  api_key: {
    schema: string({ minLength: 1, description: 'The API key; or send `client_secret` instead (exactly one of the two).' }),
    routes: { realtime: true },
  },
  client_secret: {
    schema: string({ minLength: 1, description: 'A single-use secret the key minted (POST /v1/realtime/client_secrets), in place of `api_key`.' }),
    routes: { realtime: true },
  },
  streaming_mode: { schema: string({ const: 'realtime' }), required: ['realtime'], routes: { realtime: true } },
  audio: {
    schema: {
      type: 'object',
      description: 'The binary frames that follow: PCM16 little-endian, 16 kHz, mono.',
      required: ['encoding', 'sample_rate', 'channels'],
      additionalProperties: false,
      properties: { encoding: string({ const: 'pcm16' }), sample_rate: integer({ const: SAMPLE_RATE }), channels: integer({ const: 1 }) },
    },
    required: ['realtime'],
    routes: { realtime: true },
  },
  diarization: {
    schema: {
      type: 'object',
      description: "Live speaker labels; `known_speakers` (with `enabled`): ids of voices enrolled for the key's tenant that the labels name when they match.",
      required: ['enabled'],
      additionalProperties: false,
      properties: { enabled: boolean(), known_speakers: { ...knownSpeakerIds, minItems: 1, uniqueItems: true } },
    },
    routes: { realtime: true },
  },
  event_schema: { schema: string({ const: REALTIME_EVENT_SCHEMA }), required: ['realtime'], routes: { realtime: true } },
  session_id: {
    schema: string({ pattern: SESSION_ID_PATTERN, description: "The client's id of the session." }),
    required: ['realtime'],
    routes: { realtime: true },
  },
  model: {
    schema: string(),
    required: ['transcriptions', 'translations'],
    routes: {
      ...everyForm,
      transcriptions: { enum: MODEL_IDS },
      translations: { enum: MODEL_IDS },
      jobs: { const: JOB_MODEL, default: JOB_MODEL },
      realtime: { enum: MODEL_IDS, default: FLAGSHIP_MODEL },
    },
  },
  filename: { schema: string({ maxLength: MAX_FILENAME, description: 'Must match the declared content type.' }), required: ['jobs'], routes: { jobs: true } },
  content_type: { schema: string({ maxLength: MAX_CONTENT_TYPE, description: 'A supported audio MIME type.' }), required: ['jobs'], routes: { jobs: true } },
  content_length_bytes: {
    schema: integer({ minimum: 1, maximum: MAX_JOB_UPLOAD_BYTES, description: 'The exact byte length of the file.' }),
    required: ['jobs'],
    routes: { jobs: true },
  },
  response_format: {
    schema: string({ enum: RESPONSE_FORMATS }),
    routes: {
      transcriptions: { default: DEFAULT_RESPONSE_FORMAT },
      translations: { enum: TRANSLATION_FORMATS, default: DEFAULT_TRANSLATION_FORMAT },
      jobs: { default: DEFAULT_JOB_RESPONSE_FORMAT },
    },
  },
  language: {
    schema: string({
      description:
        'A supported BCP-47 tag (family `xx` or regional `xx-YY`) or `auto` (each utterance detected). ' +
        "Omitted: the key's default language; without one, the dominant language is detected from the speech.",
      pattern: LANGUAGE_TAG_PATTERN,
      examples: ['en', 'en-GB', 'es-419', 'auto'],
    }),
    entitlement: 'language_detection',
    required: ['realtime'],
    routes: {
      transcriptions: true,
      translations: { description: 'The spoken language (a tag, or `auto`); omitted: as on transcriptions. The text is English.' },
      jobs: true,
      realtime: { enum: LANGUAGE_FAMILIES, pattern: undefined, examples: undefined, description: 'The spoken language: a family, no region and no `auto`.' },
    },
  },
  language_hints: {
    schema: stringArray({
      minItems: 1,
      maxItems: MAX_LANGUAGE_HINTS,
      uniqueItems: true,
      description: '1 to 8 candidate BCP-47 tags. Valid only with `language=auto`.',
    }),
    form: 'json',
    routes: { ...everyForm, jobs: true },
  },
  diarize: {
    schema: boolean({ default: false, description: 'Attach speaker labels and word timestamps. Use with `response_format=verbose_json`.' }),
    routes: { transcriptions: true, jobs: true },
  },
  min_speakers: {
    schema: integer({
      minimum: 1,
      maximum: MAX_SPEAKERS,
      default: 1,
      description: 'With `diarize`: the voices known to speak at least; the diarizer splits to that many when it finds them. Not above `max_speakers`.',
    }),
    routes: { transcriptions: true, jobs: true },
  },
  max_speakers: {
    schema: integer({
      minimum: 1,
      maximum: MAX_SPEAKERS,
      default: DEFAULT_MAX_SPEAKERS,
      description: 'With `diarize`: the labelling ceiling (voices beyond it keep their times, unlabelled, `review_required`).',
    }),
    routes: { transcriptions: true, jobs: true },
  },
  'known_speaker_names[]': {
    schema: {
      type: 'array',
      maxItems: MAX_KNOWN_SPEAKERS,
      items: string({ minLength: 1, maxLength: MAX_KNOWN_SPEAKER_NAME_LENGTH }),
      description:
        "OpenAI's parameter, repeated per name (or `known_speaker_names`, a JSON array), with `diarize`: up to 4 names, each paired with the " +
        'reference clip at the same position. A voice that matches a clip carries its name as `speaker`; the others keep letters, and a ' +
        'name is never given to a voice that does not match (`speaker_timing.known_speakers` says which matched and how strongly). ' +
        'A name is not a single capital letter nor `unknown`. Audio that becomes a job keeps them for its decoration.',
    },
    routes: { transcriptions: true },
  },
  known_speaker_names: { schema: string(), routes: { transcriptions: 'alias' } },
  'known_speaker_references[]': {
    schema: {
      type: 'array',
      maxItems: MAX_KNOWN_SPEAKERS,
      items: string({ pattern: '^data:', description: 'A base64 data URL of audio in any format `file` takes.' }),
      description:
        "OpenAI's parameter, repeated per clip (or `known_speaker_references`, a JSON array): 2 to 10 s of the named person speaking alone, " +
        'each at most 1 MiB as sent. Silence, music or noise, a clip of two voices, or one too short or too long is refused (422).',
    },
    routes: { transcriptions: true },
  },
  known_speaker_references: { schema: string(), routes: { transcriptions: 'alias' } },
  'known_speakers[]': {
    schema: {
      ...knownSpeakerIds,
      description:
        "Ids of voices enrolled for the key's tenant (`POST /v1/voices`), repeated per id (or `known_speakers`, a JSON array), with `diarize`: " +
        'each names the voice that matches it, as `known_speaker_names[]` does; up to 4 known speakers in all. An unknown id, or another ' +
        "tenant's, is 422. Audio that becomes a job keeps the ids; a voice deleted before its decoration names nobody.",
    },
    routes: { transcriptions: true },
  },
  known_speakers: {
    schema: {
      ...knownSpeakerIds,
      minItems: 1,
      description:
        "With `diarize`: ids of voices enrolled for the key's tenant (`POST /v1/voices`); each names the voice that matches it when " +
        "the speakers are attached. An unknown id, or another tenant's, is 422; a voice deleted before then names nobody.",
    },
    routes: { transcriptions: 'alias', jobs: true },
  },
  [TIMESTAMP_GRANULARITIES_FIELD]: {
    schema: {
      type: 'array',
      items: string({ enum: TIMESTAMP_GRANULARITIES }),
      description:
        "OpenAI's parameter, repeated per value. `word` adds `words` (without needing `diarize`; not for Arabic or Hindi); " +
        '`segment` is always given. A single value may also come as `timestamp_granularities`. ' +
        'Needs `verbose_json` or `diarized_json`; other values are refused (422).',
    },
    routes: { transcriptions: true },
  },
  timestamp_granularities: { schema: string(), routes: { transcriptions: 'alias' } },
  dictionary: {
    schema: boolean({ default: true, description: "`false` suppresses the key's stored terms for this request." }),
    routes: { transcriptions: true, realtime: true },
  },
  vocabulary: {
    schema: {
      ...terms,
      description: `Exact expected terms, up to ${MAX_TERMS} (at most ${MAX_TERMS_SMALL} when the language is \`auto\`, Arabic or Hindi).`,
    },
    form: 'json',
    routes: { transcriptions: true, jobs: true, realtime: true },
  },
  patterns: {
    schema: string({
      maxLength: MAX_PATTERNS_LENGTH,
      description:
        `Comma-separated request-only structured-token expressions (PATTERNS.md), at most ${MAX_PATTERNS}; ` +
        `a comma inside brackets, braces or parentheses, or escaped, belongs to its pattern. ` +
        `Needs the \`patterns\` entitlement.`,
    }),
    entitlement: 'patterns',
    routes: {
      transcriptions: true,
      jobs: true,
      realtime: { type: 'array', items: string(), description: 'A JSON array of patterns (PATTERNS.md). Needs the `patterns` entitlement.' },
    },
  },
  webhook_url: {
    schema: string({
      format: 'uri',
      maxLength: MAX_WEBHOOK_URL_LENGTH,
      description: 'HTTPS, port 443. Forces asynchronous dispatch (202). Needs an active webhook signing secret on the key.',
    }),
    routes: { ...everyForm, jobs: { description: 'HTTPS, port 443. Needs an active webhook signing secret on the key.' } },
  },
  stream: {
    schema: boolean({
      default: false,
      description:
        `Answer with server-sent events (text/event-stream) as the text is decoded: ` +
        `\`transcript.text.delta\`, then \`transcript.text.segment\` per segment for \`diarized_json\`, then \`transcript.text.done\`. ` +
        `Needs response_format ${STREAMED_FORMATS.join(', ')}, audio within the inline boundary, no \`webhook_url\` and no \`include[]\` (422 otherwise).`,
    }),
    routes: { transcriptions: true },
  },
  profile: {
    schema: string({
      enum: PROFILES,
      default: DEFAULT_PROFILE,
      description:
        '`standard` and `turbo` are deprecated aliases of `default` with identical behaviour; responses to them carry `Deprecation` and `Warning` headers.',
    }),
    routes: { transcriptions: true, jobs: true },
  },
  prompt: {
    schema: string({
      maxLength: MAX_PROMPT_CHARACTERS,
      description: "OpenAI's parameter: text that guides the wording and style (VOCABULARY.md: prompted with the terms, under the same safety check).",
    }),
    routes: { ...everyForm, jobs: true },
  },
  keywords: {
    schema: { ...terms, description: "OpenAI's parameter, the same as `vocabulary` (send one of the two): terms." },
    form: 'json',
    routes: { transcriptions: true, jobs: true },
  },
  [KEYWORDS_FIELD]: {
    schema: { type: 'array', items: string(), description: "`keywords` as OpenAI's client sends an array: the field repeated per term." },
    routes: { transcriptions: true },
  },
  temperature: {
    schema: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      default: 0,
      description: "OpenAI's parameter: whisper's first decoding temperature. 0 decodes deterministically (greedy or beam search); above 0 whisper samples.",
    },
    routes: everyForm,
  },
  [INCLUDE_FIELD]: {
    schema: {
      type: 'array',
      items: string({ enum: INCLUDE_VALUES }),
      description:
        "OpenAI's parameter (`include` for a single value). `logprobs` adds `logprobs` to the `json` answer: " +
        "the decoder's tokens with their log-probability and bytes, before vocabulary corrections. " +
        'Needs `json` and an inline answer, and cannot be streamed (422 otherwise, as with `stream=true`).',
    },
    routes: { transcriptions: true },
  },
  include: { schema: string(), routes: { transcriptions: 'alias' } },
  chunking_strategy: {
    schema: string({
      description:
        "OpenAI's parameter: `auto` (what the service always does: the VAD's speech regions decide the boundaries) " +
        'or a `server_vad` object, sent as `chunking_strategy[type]=server_vad` with `chunking_strategy[threshold]` (0-1, default 0.5), ' +
        '`chunking_strategy[prefix_padding_ms]` (default 300) and `chunking_strategy[silence_duration_ms]` (default 200), ' +
        "or as its JSON string: the VAD's threshold, padding and minimum silence for this request (jobs too).",
    }),
    routes: { transcriptions: true },
  },
  smart_format: {
    schema: boolean({
      default: false,
      description:
        'Write spoken clinical quantities as a chart writes them (`25 mg`, `142/88`, `96%`), by the medication-safety rules, each change ' +
        'proved to say the same number (docs/API.md "Smart format"). English only; other languages pass through. ' +
        'Streamed, the deltas come once the whole text is formatted.',
    }),
    routes: { transcriptions: true, jobs: true, realtime: true },
  },
  redact: {
    schema: string({
      description:
        'Remove PHI: comma-separated policy names, `identifiers` (every HIPAA Safe Harbor identifier class), `health` (conditions, ' +
        'medications, procedures), `all`, or class names (docs/API.md "Redaction"). The answer lists where (`redactions`, seconds) and how ' +
        'many (`redaction_counts`), never what. Streamed, the deltas come once the whole text is redacted, and ' +
        '`transcript.text.done` carries `redactions` and `redaction_counts`. Not with `include[]=logprobs`.',
      examples: ['identifiers', 'person_name,phone_number', 'all'],
    }),
    routes: { transcriptions: true, jobs: true, realtime: true },
  },
  redact_audio: {
    schema: boolean({
      default: false,
      description:
        'With `redact`, on a job: keep a redacted copy of the audio, silent (or a tone: `redact_audio_fill`) over each redacted passage ' +
        '(padded 0.2 s each side), as a 16 kHz ' +
        'mono 16-bit WAV downloaded from the job like its result and deleted with it (docs/API.md "Redaction"). On the upload, only with `webhook_url`.',
    }),
    routes: { transcriptions: true, jobs: true },
  },
  redact_audio_fill: {
    schema: string({
      enum: REDACTION_FILLS,
      default: 'silence',
      description: `With \`redact_audio\`: what the copy has over each redacted passage, silence or a ${TONE_HZ / 1000} kHz tone at -12 dBFS.`,
    }),
    routes: { transcriptions: true, jobs: true },
  },
  redact_output: {
    schema: string({
      enum: REDACT_OUTPUTS,
      default: 'redacted',
      description:
        'With `redact`, on a job: `redacted_and_unredacted` also keeps the unredacted transcript, in the same format, fetched from ' +
        "`GET /v1/jobs/{id}/unredacted_result` by the key that created the job and deleted with the result (AWS's RedactionOutput). " +
        '`redacted` (the default): the unredacted transcript is not stored. On the upload, `redacted_and_unredacted` only with `webhook_url`.',
    }),
    routes: { transcriptions: true, jobs: true },
  },
  redact_substitution: {
    schema: string({
      enum: SUBSTITUTIONS,
      default: 'entity_name',
      description: 'With `redact`: `entity_name` writes the class (`[PERSON_NAME]`); `hash` writes `####`, whatever the length removed.',
    }),
    routes: { transcriptions: true, jobs: true, realtime: true },
  },
  confidence_threshold: {
    schema: {
      type: 'number',
      exclusiveMinimum: 0,
      exclusiveMaximum: 1,
      description:
        'Mark for review (`low_confidence: true`) each word and segment whose `confidence` is below this: the places a reviewer should ' +
        'check. Confidences are model probabilities, not calibrated accuracies.',
    },
    routes: { transcriptions: true, jobs: true },
  },
  multichannel: {
    schema: boolean({
      default: false,
      description:
        `Transcribe each channel of a ${MAX_CHANNELS}-channel recording on its own (a caller and a callee, a clinician and a patient ` +
        'on their own microphones), merged in time: every segment and word carries `channel` (0-based), and its `speaker` is the ' +
        'channel (`channel_0`), or with `diarize` the voice within it (`channel_0_A`). A word heard on both channels is kept on the ' +
        'louder one. Mono audio, or more channels, is refused (422). Billed once per second of audio, whatever the channels ' +
        '(docs/API.md "Multichannel"). Not with `stream=true`, `include[]=logprobs` or known speakers.',
    }),
    routes: { transcriptions: true, jobs: true },
  },
} as const satisfies Record<string, RequestField>;

export type RequestFieldName = keyof typeof REQUEST_FIELDS;

const entries = () => Object.entries(REQUEST_FIELDS) as Array<[RequestFieldName, RequestField]>;

/** The names `route` accepts, aliases included (anything else is refused as unknown). */
export function fieldNamesOf(route: FieldRoute): RequestFieldName[] {
  return entries()
    .filter(([, field]) => field.routes[route] !== undefined)
    .map(([name]) => name);
}

/** The fields `route` documents, as JSON Schema properties: the JSON body's as declared, a form's as it sends them. */
export function documentedFields(route: FieldRoute, encoding: 'json' | 'form'): Record<string, Schema> {
  const properties: Record<string, Schema> = {};
  for (const [name, field] of entries()) {
    const onRoute = field.routes[route];
    if (onRoute === undefined || onRoute === 'alias') continue;
    const schema = onRoute === true ? field.schema : { ...field.schema, ...onRoute };
    properties[name] = encoding === 'form' && field.form === 'json' ? asJsonText(schema) : schema;
  }
  return properties;
}

/** The names `route` requires. */
export function requiredFieldsOf(route: FieldRoute): string[] {
  return entries()
    .filter(([, field]) => field.required?.includes(route))
    .map(([name]) => name);
}

/** A value a form sends as JSON text: a string whose content is the value. */
function asJsonText({ description, ...value }: Schema): Schema {
  return string({ description: `A JSON array as a string. ${description ?? ''}`.trim(), contentMediaType: 'application/json', contentSchema: value });
}
