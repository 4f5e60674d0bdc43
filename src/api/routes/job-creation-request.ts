// Validates the body of POST /v1/jobs (the contract's job-creation table) into a stored-request
// shape and the upload slot's declaration. Everything is checked before any slot exists. Statuses
// follow the direct route: malformed or unsupported option 400, unsupported media type 415, a length
// over the cap 413, unsupported language, vocabulary, patterns, hints or combination 422, a missing
// entitlement 403. Messages name only our own field names, never request content. The two answers
// with no kind below (a media type, an upload length) are the contract's own, built here.
import type { JobCreation } from '../../application/create-presigned-job.js';
import { containerForMimeType, filenameMatchesMimeType } from '../../audio/index.js';
import { parseClinicalTextFields } from '../../contract/clinical-text-fields.js';
import { refuseUnredactedForKey, withKeyTextDefaults } from '../../contract/key-text-defaults.js';
import { parseJobKnownSpeakers } from '../../contract/known-speaker-fields.js';
import { parsePrompt } from '../../contract/prompt-field.js';
import { requireEntitlements } from '../../contract/request-entitlements.js';
import {
  DEFAULT_JOB_RESPONSE_FORMAT,
  DEFAULT_PROFILE,
  fieldNamesOf,
  MAX_CONTENT_TYPE,
  MAX_FILENAME,
  MAX_JOB_UPLOAD_BYTES,
  type Profile,
  PROFILES,
  type RequestFieldName,
  RESPONSE_FORMATS,
  type ResponseFormat,
  SEGMENT_FORMATS,
} from '../../contract/request-fields.js';
import { parseSpeakerCount } from '../../contract/speaker-count.js';
import { type LanguageChoice, omittedLanguage, refuseWithMultichannel } from '../../contract/transcription-request.js';
import { validateWebhookUrl } from '../../contract/webhook-url.js';
import type { ApiKeyRecord } from '../../domain/api-keys.js';
import { unknownFieldMessage } from '../../domain/field-names.js';
import { type LanguageTag, parseLanguageTag, SUPPORTED_LANGUAGE_TAGS } from '../../domain/language-families.js';
import { JOB_MODEL } from '../../domain/model-ids.js';
import { MAX_LANGUAGE_HINTS } from '../../pipeline/languages.js';
import { parsePatterns } from '../../pipeline/patterns.js';
import { InvalidRequestField, UnprocessableRequest } from '../../pipeline/pipeline-errors.js';
import { validateTerms, vocabularyLanguageOf } from '../../pipeline/vocabulary-terms.js';
import { API_REFUSALS } from '../api-refusals.js';

const FIELDS = fieldNamesOf('jobs');

// The pipeline's kinds, as the direct route's fields use them (src/contract/transcription-request.ts):
// src/api/error-mapping.ts answers them 400, 422 and 403.
const bad = (message: string) => new InvalidRequestField(message);
const unprocessable = (message: string) => new UnprocessableRequest(message);

export function parseJobCreation(body: unknown, key: ApiKeyRecord): JobCreation {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw bad('the request body must be a JSON object');
  const fields = body as Record<string, unknown>;
  // A misspelt optional field would otherwise be silently ignored, e.g. a vocabulary never applied.
  const unknown = Object.keys(fields).find((name) => !(FIELDS as readonly string[]).includes(name));
  if (unknown !== undefined) throw bad(unknownFieldMessage(unknown, FIELDS));
  const present = (name: RequestFieldName) => fields[name] !== undefined && fields[name] !== null;

  if (present('model') && fields.model !== JOB_MODEL) throw bad(`model must be ${JOB_MODEL} on /v1/jobs`);

  const filename = fields.filename;
  if (typeof filename !== 'string' || filename.length < 1 || filename.length > MAX_FILENAME) {
    throw bad(`filename is required: 1 to ${MAX_FILENAME} characters`);
  }
  const contentType = fields.content_type;
  if (typeof contentType !== 'string' || contentType.length < 1 || contentType.length > MAX_CONTENT_TYPE) {
    throw bad(`content_type is required: 1 to ${MAX_CONTENT_TYPE} characters`);
  }
  if (!containerForMimeType(contentType)) throw API_REFUSALS.unsupportedJobContentType();
  if (!filenameMatchesMimeType(filename, contentType)) throw bad("filename's extension does not match content_type");

  const length = fields.content_length_bytes;
  if (typeof length !== 'number' || !Number.isInteger(length)) throw bad('content_length_bytes is required: an integer');
  if (length > MAX_JOB_UPLOAD_BYTES) throw API_REFUSALS.jobUploadTooLarge(MAX_JOB_UPLOAD_BYTES);
  if (length < 1) throw bad('content_length_bytes is at least 1');

  const responseFormat = enumField<ResponseFormat>(fields.response_format, RESPONSE_FORMATS, DEFAULT_JOB_RESPONSE_FORMAT, 'response_format');
  const profile = enumField<Profile>(fields.profile, PROFILES, DEFAULT_PROFILE, 'profile');
  const diarize = booleanField(fields.diarize, 'diarize');
  const speakerCount = parseSpeakerCount(
    { min_speakers: present('min_speakers') ? fields.min_speakers : undefined, max_speakers: present('max_speakers') ? fields.max_speakers : undefined },
    diarize,
  );

  const language = parseLanguage(fields, key);
  // OpenAI's `keywords` is `vocabulary` by another name.
  if (present('vocabulary') && present('keywords')) throw bad('send vocabulary or keywords, not both');
  const terms = present('vocabulary') ? fields.vocabulary : fields.keywords;
  const vocabulary = terms !== undefined && terms !== null ? validateTerms(terms, vocabularyLanguageOf(language)) : [];
  const prompt = parsePrompt(fields.prompt);
  let patterns: string[] = [];
  if (present('patterns')) {
    if (typeof fields.patterns !== 'string') throw unprocessable('patterns must be a string of comma-separated expressions');
    patterns = parsePatterns(fields.patterns);
  }
  requireEntitlements({ patterns }, key);
  if (diarize && !SEGMENT_FORMATS.includes(responseFormat)) {
    throw unprocessable(`diarize needs response_format ${SEGMENT_FORMATS.join(', ')}`);
  }
  let webhookUrl: string | null = null;
  if (present('webhook_url')) {
    if (typeof fields.webhook_url !== 'string') throw unprocessable('webhook_url must be a string');
    webhookUrl = validateWebhookUrl(fields.webhook_url);
  }
  const multichannel = booleanField(fields.multichannel, 'multichannel');
  const enrolledVoiceIds = parseJobKnownSpeakers(fields.known_speakers, diarize);
  if (multichannel) refuseWithMultichannel({ stream: false, logprobs: false, knownSpeakers: enrolledVoiceIds.length > 0 });
  const clinicalText = parseClinicalTextFields(withKeyTextDefaults(fields, key, 'json'), 'json');
  refuseUnredactedForKey(clinicalText, key);
  return {
    request: {
      task: 'transcribe',
      vad: null,
      // Reference clips come with the direct route's upload only; enrolled voices by id here too.
      knownSpeakerReferences: [],
      enrolledVoiceIds,
      model: JOB_MODEL,
      responseFormat,
      language,
      diarize,
      // OpenAI's timestamp_granularities[] belongs to the transcription route; jobs give words with diarize.
      wordTimestamps: false,
      dictionary: true,
      vocabulary,
      prompt,
      patterns,
      webhookUrl,
      profile,
      stream: false,
      temperature: 0,
      logprobs: false,
      ...speakerCount,
      clinicalText,
      multichannel,
    },
    filename,
    contentType,
    contentLength: length,
  };
}

function parseLanguage(fields: Record<string, unknown>, key: ApiKeyRecord): LanguageChoice {
  const raw = fields.language;
  const hints = fields.language_hints;
  if (raw !== undefined && raw !== null && typeof raw !== 'string') throw unprocessable('language must be a string');
  if (raw === 'auto') {
    requireEntitlements({ autoLanguage: true }, key);
    return { mode: 'auto', hints: hints === undefined || hints === null ? null : parseHints(hints) };
  }
  if (hints !== undefined && hints !== null) throw unprocessable('language_hints is only valid with language=auto');
  if (typeof raw === 'string' && raw !== '') {
    const tag = parseLanguageTag(raw);
    if (!tag) throw unprocessable(`language is not a supported language tag: use ${SUPPORTED_LANGUAGE_TAGS}, or auto`);
    return { mode: 'explicit', language: tag, source: 'requested' };
  }
  return omittedLanguage(key.defaultLanguage);
}

function parseHints(value: unknown): LanguageTag[] {
  if (!Array.isArray(value) || value.length < 1 || value.length > MAX_LANGUAGE_HINTS)
    throw unprocessable(`language_hints must be an array of 1 to ${MAX_LANGUAGE_HINTS} language tags`);
  const tags = value.map((v) => (typeof v === 'string' ? parseLanguageTag(v) : null));
  if (tags.some((t) => t === null)) throw unprocessable(`language_hints contains an unsupported language tag: use ${SUPPORTED_LANGUAGE_TAGS}`);
  if (new Set(tags.map((t) => t!.tag)).size !== tags.length) throw unprocessable('language_hints must not repeat a tag');
  return tags as LanguageTag[];
}

function enumField<T extends string>(value: unknown, allowed: readonly T[], fallback: T, field: string): T {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) throw bad(`${field} must be one of: ${allowed.join(', ')}`);
  return value as T;
}

function booleanField(value: unknown, field: string): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw bad(`${field} must be true or false`);
  return value;
}
