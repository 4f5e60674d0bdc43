// Validates the direct-upload form fields (the contract's direct-upload table) into a typed request.
// Refusals are typed by what is wrong (pipeline-errors.ts); the API gives them the contract's statuses:
// a malformed field or unsupported model option 400, an unsupported language, bad vocabulary, patterns,
// hints or feature combination 422, a missing entitlement 403.
import type { ApiKeyRecord } from '../domain/api-keys.js';
import { unknownFieldMessage } from '../domain/field-names.js';
import { type LanguageTag, parseLanguageTag, SUPPORTED_LANGUAGE_TAGS } from '../domain/language-families.js';
import { MODEL_IDS, type ModelId } from '../domain/model-ids.js';
import type { Task } from '../domain/tasks.js';
import type { LanguageChoice } from '../pipeline/language-stage.js';
import { MAX_LANGUAGE_HINTS, WORD_TIMING_FAMILIES } from '../pipeline/languages.js';
import { parsePatterns } from '../pipeline/patterns.js';
import { InvalidRequestField, UnprocessableRequest } from '../pipeline/pipeline-errors.js';
import { parseVocabulary, vocabularyLanguageOf } from '../pipeline/vocabulary-terms.js';
import { isChunkingStrategyField, parseChunkingStrategy, type RequestVadParams } from './chunking-strategy.js';
import { type ClinicalTextFields, parseClinicalTextFields } from './clinical-text-fields.js';
import { refuseUnredactedForKey, withKeyTextDefaults } from './key-text-defaults.js';
import { type KnownSpeakerReference, parseKnownSpeakerFields } from './known-speaker-fields.js';
import { parsePrompt } from './prompt-field.js';
import { requireEntitlements } from './request-entitlements.js';
import {
  DEFAULT_PROFILE,
  DEFAULT_RESPONSE_FORMAT,
  fieldNamesOf,
  INCLUDE_FIELD,
  INCLUDE_VALUES,
  KEYWORDS_FIELD,
  type Profile,
  PROFILES,
  RESPONSE_FORMATS,
  type ResponseFormat,
  SEGMENT_FORMATS,
  STREAMED_FORMATS,
  TIMESTAMP_GRANULARITIES,
  TIMESTAMP_GRANULARITIES_FIELD,
} from './request-fields.js';
import { parseSpeakerCount } from './speaker-count.js';
import { validateWebhookUrl } from './webhook-url.js';

/** OpenAI's `owned_by` of the models this service answers to. */
export const MODEL_OWNER = 'svc-stt';

/**
 * Every field the route knows (request-fields.ts): the contract's, then OpenAI's. Anything else is
 * refused (a misspelt field would otherwise be silently ignored). `file` arrives as the upload, not as a field.
 */
export const TRANSCRIPTION_FIELDS = fieldNamesOf('transcriptions');

const NO_LANGUAGES = 'languages is not supported: send language=auto with language_hints (a JSON array of tags)';
/** OpenAI's fields this service refuses with a reason (rather than as unknown), single and `[]` forms. */
const REFUSED_OPENAI_FIELDS: Readonly<Record<string, string>> = Object.fromEntries(
  [['languages', NO_LANGUAGES]].flatMap(([name, reason]) => [
    [name, reason],
    [`${name}[]`, reason],
  ]),
);

export type { LanguageChoice };

/**
 * An omitted `language`: the key's default language when it has one (an operator's explicit choice,
 * used as stored), else the dominant language detected from the audio (contract, behavioural rule 2).
 */
export function omittedLanguage(defaultLanguage: string | null): LanguageChoice {
  const tag = defaultLanguage === null ? null : parseLanguageTag(defaultLanguage);
  return tag ? { mode: 'explicit', language: tag, source: 'default' } : { mode: 'dominant' };
}

export interface TranscriptionRequest {
  /** `translate` on /v1/audio/translations (translation-request.ts); `transcribe` here. */
  task: Task;
  model: ModelId;
  responseFormat: ResponseFormat;
  language: LanguageChoice;
  diarize: boolean;
  /** With diarize: the labelling ceiling and the voices the diarizer splits to at least (speaker-count.ts). */
  maxSpeakers: number;
  minSpeakers: number;
  /** `timestamp_granularities[]` includes `word`. */
  wordTimestamps: boolean;
  dictionary: boolean;
  vocabulary: string[];
  /** OpenAI's `prompt`, or null. */
  prompt: string | null;
  patterns: string[];
  webhookUrl: string | null;
  profile: Profile;
  /** OpenAI's `stream`: answer with server-sent events as the text is decoded (inline only). */
  stream: boolean;
  /** OpenAI's `temperature` (0 to 1): whisper's first decoding temperature; 0 is deterministic. */
  temperature: number;
  /** OpenAI's `include[]=logprobs`: the json answer carries the decoder's token log-probabilities (inline only). */
  logprobs: boolean;
  /** OpenAI's `chunking_strategy` server_vad parameters for the VAD; null: the service's own (`auto`). */
  vad: RequestVadParams | null;
  /** OpenAI's known speakers (with diarize): names and their reference clips, not yet decoded. */
  knownSpeakerReferences: KnownSpeakerReference[];
  /** `known_speakers[]` (with diarize): ids of the tenant's enrolled voices, not yet looked up. */
  enrolledVoiceIds: string[];
  /** `smart_format`, `redact` and `redact_substitution`: what becomes of the words after recognition. */
  clinicalText: ClinicalTextFields;
  /** Each channel transcribed on its own and merged (pipeline/channel-tracks.ts); the audio's channels are checked once decoded. */
  multichannel: boolean;
}

const bad = (message: string) => new InvalidRequestField(message);
const unprocessable = (message: string) => new UnprocessableRequest(message);

export function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], fallback: T | undefined, field: string): T {
  if (value === undefined || value === '') {
    if (fallback === undefined) throw bad(`${field} is required`);
    return fallback;
  }
  if (!(allowed as readonly string[]).includes(value)) throw bad(`${field} must be one of: ${allowed.join(', ')}`);
  return value as T;
}

function booleanField(value: string | undefined, fallback: boolean, field: string): boolean {
  if (value === undefined || value === '') return fallback;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw bad(`${field} must be true or false`);
}

function parseHints(raw: string | undefined): LanguageTag[] | null {
  if (raw === undefined || raw === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw unprocessable('language_hints must be a JSON array of language tags');
  }
  if (!Array.isArray(value) || value.length < 1 || value.length > MAX_LANGUAGE_HINTS) {
    throw unprocessable(`language_hints must be a JSON array of 1 to ${MAX_LANGUAGE_HINTS} language tags`);
  }
  const tags = value.map((v) => (typeof v === 'string' ? parseLanguageTag(v) : null));
  if (tags.some((t) => t === null)) throw unprocessable(`language_hints contains an unsupported language tag: use ${SUPPORTED_LANGUAGE_TAGS}`);
  const families = new Set(tags.map((t) => t!.tag));
  if (families.size !== tags.length) throw unprocessable('language_hints must not repeat a tag');
  return tags as LanguageTag[];
}

/** The values of an OpenAI array field (`name[]`): one value, or the JSON array of repeated values. */
function arrayFieldValues(raw: string | undefined): unknown[] {
  if (raw === undefined || raw === '') return [];
  let values: unknown;
  try {
    values = raw.startsWith('[') ? JSON.parse(raw) : [raw];
  } catch {
    values = [raw];
  }
  return Array.isArray(values) ? values : [values];
}

/** The values of `timestamp_granularities[]`. */
function parseGranularities(raw: string | undefined): Array<(typeof TIMESTAMP_GRANULARITIES)[number]> {
  const list = arrayFieldValues(raw);
  for (const v of list) {
    if (typeof v !== 'string' || !(TIMESTAMP_GRANULARITIES as readonly string[]).includes(v)) {
      throw unprocessable(`timestamp_granularities[] values must be ${TIMESTAMP_GRANULARITIES.join(' or ')}`);
    }
  }
  return list as Array<(typeof TIMESTAMP_GRANULARITIES)[number]>;
}

/** OpenAI's `temperature`: a number from 0 to 1 (a form field, so a decimal string). */
export function parseTemperature(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 0;
  const value = Number(raw);
  if (!/^\s*[0-9.eE+-]+\s*$/.test(raw) || !Number.isFinite(value) || value < 0 || value > 1) throw bad('temperature must be a number from 0 to 1');
  return value;
}

/** OpenAI's `include[]` (or `include`): only `logprobs`, which needs the json format. */
function parseInclude(raw: string | undefined, responseFormat: ResponseFormat): boolean {
  const list = arrayFieldValues(raw);
  if (list.length === 0) return false;
  if (list.some((v) => !(INCLUDE_VALUES as readonly unknown[]).includes(v))) throw bad(`include[] values must be ${INCLUDE_VALUES.join(', ')}`);
  if (responseFormat !== 'json') throw unprocessable('include[]=logprobs needs response_format json');
  return true;
}

/** Refuses a field the route does not know, or an OpenAI field it does not support, before reading any. */
function checkFieldNames(fields: Record<string, string>): void {
  for (const name of Object.keys(fields)) {
    if (REFUSED_OPENAI_FIELDS[name]) throw unprocessable(REFUSED_OPENAI_FIELDS[name]);
    if (!(TRANSCRIPTION_FIELDS as readonly string[]).includes(name) && !isChunkingStrategyField(name)) {
      throw bad(unknownFieldMessage(name, TRANSCRIPTION_FIELDS));
    }
  }
}

/** `language` (a tag, `auto` with optional `language_hints`, or omitted) as the language stage's choice. */
export function parseLanguageChoice(fields: Record<string, string>, key: ApiKeyRecord): LanguageChoice {
  const rawLanguage = fields.language;
  if (rawLanguage === 'auto') {
    requireEntitlements({ autoLanguage: true }, key);
    return { mode: 'auto', hints: parseHints(fields.language_hints) };
  }
  if (fields.language_hints !== undefined && fields.language_hints !== '') {
    throw unprocessable('language_hints is only valid with language=auto');
  }
  if (rawLanguage === undefined || rawLanguage === '') return omittedLanguage(key.defaultLanguage);
  const tag = parseLanguageTag(rawLanguage);
  if (!tag) throw unprocessable(`language is not a supported language tag: use ${SUPPORTED_LANGUAGE_TAGS}, or auto`);
  return { mode: 'explicit', language: tag, source: 'requested' };
}

export function parseTranscriptionFields(fields: Record<string, string>, key: ApiKeyRecord): TranscriptionRequest {
  checkFieldNames(fields);
  const vad = parseChunkingStrategy(fields);
  const model = oneOf(fields.model, MODEL_IDS, undefined, 'model');
  const responseFormat = oneOf(fields.response_format, RESPONSE_FORMATS, DEFAULT_RESPONSE_FORMAT, 'response_format');
  const profile = oneOf(fields.profile, PROFILES, DEFAULT_PROFILE, 'profile');
  const diarize = booleanField(fields.diarize, false, 'diarize');
  const speakerCount = parseSpeakerCount(fields, diarize);
  const knownSpeakers = parseKnownSpeakerFields(fields, diarize);
  const dictionary = booleanField(fields.dictionary, true, 'dictionary');
  const language = parseLanguageChoice(fields, key);

  // OpenAI's `keywords` (an array: `keywords[]` repeated, or a JSON array string) is `vocabulary` by another name.
  const keywords = fields[KEYWORDS_FIELD] ?? fields.keywords;
  if ([fields.vocabulary, fields.keywords, fields[KEYWORDS_FIELD]].filter((v) => v !== undefined).length > 1) {
    throw bad('send one of vocabulary, keywords or keywords[]');
  }
  const vocabulary = parseVocabulary(fields.vocabulary ?? keywords, vocabularyLanguageOf(language));
  const prompt = parsePrompt(fields.prompt);
  const patterns = parsePatterns(fields.patterns);
  requireEntitlements({ patterns }, key);
  if (diarize && !SEGMENT_FORMATS.includes(responseFormat)) {
    throw unprocessable(`diarize needs response_format ${SEGMENT_FORMATS.join(', ')}`);
  }
  if (fields[TIMESTAMP_GRANULARITIES_FIELD] !== undefined && fields.timestamp_granularities !== undefined) {
    throw bad('send timestamp_granularities[] or timestamp_granularities, not both');
  }
  const granularities = parseGranularities(fields[TIMESTAMP_GRANULARITIES_FIELD] ?? fields.timestamp_granularities);
  if (granularities.length > 0 && (responseFormat === 'json' || responseFormat === 'text')) {
    throw unprocessable('timestamp_granularities[] needs response_format verbose_json or diarized_json');
  }
  const wordTimestamps = granularities.includes('word');
  if (wordTimestamps && language.mode === 'explicit' && !WORD_TIMING_FAMILIES.includes(language.language.family)) {
    throw unprocessable(`word timestamps are not available for ${language.language.family}; speakers come as speaker_segments`);
  }
  const webhookUrl = fields.webhook_url === undefined || fields.webhook_url === '' ? null : validateWebhookUrl(fields.webhook_url);
  const stream = booleanField(fields.stream, false, 'stream');
  if (stream && webhookUrl !== null) {
    throw unprocessable('stream=true answers on this connection, webhook_url makes the request a job: send one or the other');
  }
  if (stream && !STREAMED_FORMATS.includes(responseFormat)) {
    throw unprocessable(`stream=true needs response_format ${STREAMED_FORMATS.join(', ')}`);
  }
  const temperature = parseTemperature(fields.temperature);
  if (fields[INCLUDE_FIELD] !== undefined && fields.include !== undefined) throw bad('send include[] or include, not both');
  const logprobs = parseInclude(fields[INCLUDE_FIELD] ?? fields.include, responseFormat);
  if (logprobs && webhookUrl !== null) throw unprocessable('include[]=logprobs comes with an inline answer; webhook_url makes the request a job');
  // The stream's events carry text only; the log-probabilities come with the json answer's body.
  if (logprobs && stream) throw unprocessable('include[]=logprobs comes with the json answer and cannot be streamed: send stream=true or include[], not both');
  const clinicalText = parseClinicalTextFields(withKeyTextDefaults(fields, key, 'form'), 'form');
  refuseUnredactedForKey(clinicalText, key, logprobs);
  // The copy is a job's, kept beside its result: only a request that is surely a job may ask for it.
  if (clinicalText.redactAudio && webhookUrl === null) throw unprocessable('redact_audio comes with a job: send webhook_url too, or use /v1/jobs');
  // An inline answer stores nothing to keep an unredacted copy beside; two transcripts in one answer would undo the point of asking.
  if (clinicalText.redactOutput === 'redacted_and_unredacted' && webhookUrl === null) {
    throw unprocessable('redact_output=redacted_and_unredacted keeps a copy beside a job result: send webhook_url too, or use /v1/jobs');
  }
  // Token texts spell the words a redaction removed.
  if (logprobs && clinicalText.redact !== null) throw unprocessable('include[]=logprobs gives the words redact removes: send one or the other');
  const multichannel = booleanField(fields.multichannel, false, 'multichannel');
  if (multichannel) {
    const knownSpeakersAsked = knownSpeakers.references.length + knownSpeakers.enrolledVoiceIds.length > 0;
    refuseWithMultichannel({ stream, logprobs, knownSpeakers: knownSpeakersAsked });
  }
  return {
    task: 'transcribe',
    model,
    responseFormat,
    language,
    diarize,
    ...speakerCount,
    wordTimestamps,
    dictionary,
    vocabulary,
    prompt,
    patterns,
    webhookUrl,
    profile,
    stream,
    temperature,
    logprobs,
    vad,
    knownSpeakerReferences: knownSpeakers.references,
    enrolledVoiceIds: knownSpeakers.enrolledVoiceIds,
    clinicalText,
    multichannel,
  };
}

/**
 * What multichannel does not combine with: a stream's deltas (each channel is decoded apart and the
 * text is whole only once merged), the decoder's tokens (two decodes, some taken out as bleed), and
 * known speakers (a name is matched within one recording of one voice set, not per channel).
 */
export function refuseWithMultichannel(asked: { stream: boolean; logprobs: boolean; knownSpeakers: boolean }): void {
  if (asked.stream) throw unprocessable('multichannel merges the channels once each is transcribed and cannot be streamed: send stream=true or multichannel');
  if (asked.logprobs) throw unprocessable('include[]=logprobs gives one decode; multichannel makes one per channel: send one or the other');
  if (asked.knownSpeakers) throw unprocessable('known speakers are not matched per channel: send multichannel or known speakers, not both');
}
