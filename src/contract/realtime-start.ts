// The realtime `start` message (docs/DESIGN.md "Interfaces that scripts rely on"), validated field by
// field before the session is accepted and before any audio is taken:
//   {"type":"start","api_key":"svc_...","streaming_mode":"realtime",
//    "audio":{"encoding":"pcm16","sample_rate":16000,"channels":1},"language":"en",
//    "diarization":{"enabled":true},"event_schema":"svc-agent-v1","session_id":"<unique>"}
// Instead of `api_key`, a page that must not hold the key sends `client_secret`: a single-use secret
// the key minted for it (POST /v1/realtime/client_secrets), OpenAI's name for its own; exactly one
// of the two. `model` (svc-medical-1 default, or svc-medical-edge-1) is optional, and so are the clinical
// vocabulary (`vocabulary`: terms by the upload's rules; `dictionary`: false leaves the key's stored
// terms out) and `patterns` (the upload's rules; the key's entitlement is checked once it is known).
// Unknown fields are refused. The names are the contract table's (request-fields.ts, route `realtime`):
// a field shared with the HTTP requests is declared there once.
import { SAMPLE_RATE } from '../domain/audio-format.js';
import { unknownFieldMessage } from '../domain/field-names.js';
import { LANGUAGE_FAMILIES, type LanguageFamily } from '../domain/language-families.js';
import { FLAGSHIP_MODEL, MODEL_IDS, type ModelId } from '../domain/model-ids.js';
import { checkPatterns, MAX_PATTERNS_LENGTH } from '../pipeline/patterns.js';
import { InvalidRequestField, type PipelineError } from '../pipeline/pipeline-errors.js';
import { validateTerms } from '../pipeline/vocabulary-terms.js';
import { type ClinicalTextFields, type ClinicalTextValues, parseClinicalTextFields } from './clinical-text-fields.js';
import { MAX_KNOWN_SPEAKERS } from './known-speaker-fields.js';
import { fieldNamesOf, REALTIME_EVENT_SCHEMA, REQUEST_FIELDS, SESSION_ID_PATTERN } from './request-fields.js';

export const EVENT_SCHEMA = REALTIME_EVENT_SCHEMA;
/** Longest start message, in bytes (a vocabulary of a thousand long terms fits): anything longer is refused unparsed. */
export const MAX_START_BYTES = 128 * 1024;
const SESSION_ID = new RegExp(SESSION_ID_PATTERN);
/** The start's fields, as the contract's table gives them to the realtime route: its own and those it shares with the HTTP requests. */
const FIELDS: readonly string[] = fieldNamesOf('realtime');
const AUDIO_FIELDS = Object.keys(REQUEST_FIELDS.audio.schema.properties);

/** Who opens the session: the API key itself, or a client secret it minted (used up by this start). */
export type StartCredential = { kind: 'api_key'; key: string } | { kind: 'client_secret'; secret: string };

export interface StartMessage {
  credential: StartCredential;
  language: LanguageFamily;
  diarization: boolean;
  /** diarization.known_speakers: ids of the tenant's enrolled voices that live labels name when they match. */
  knownSpeakers: string[];
  sessionId: string;
  model: ModelId;
  /** Request terms, validated (decision 3's limits for the session's language). */
  vocabulary: string[];
  /** Merge the key's stored dictionary for the language (default true). */
  dictionary: boolean;
  /** Structured-token patterns, validated; the key's entitlement is checked when it is known. */
  patterns: string[];
  /** `smart_format`, `redact` and `redact_substitution`, read as the job body's are. */
  clinicalText: ClinicalTextFields;
  /** The clinical-text fields as sent: the admission reads them again with the key's standing choices (key-text-defaults.ts). */
  clinicalTextSent: ClinicalTextValues;
}

/** The start message of a text frame; throws InvalidRequestField naming the field (the session refuses the start with its message). */
export function parseStart(frame: Uint8Array): StartMessage {
  if (frame.length > MAX_START_BYTES) throw invalidStart(`the start message is over ${MAX_START_BYTES} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(frame));
  } catch {
    throw invalidStart('the start message is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidStart('the start message must be a JSON object');
  const m = value as Record<string, unknown>;
  if (m.type !== 'start') throw invalidStart('the first message must be {"type":"start",...}');
  const unknown = Object.keys(m).find((k) => !FIELDS.includes(k));
  if (unknown !== undefined) throw invalidStart(unknownFieldMessage(unknown, FIELDS, 'the start message'));
  const credential = startCredential(m);
  if (m.streaming_mode !== 'realtime') throw invalidStart('streaming_mode must be "realtime"');
  const audio = m.audio as Record<string, unknown> | undefined;
  if (typeof audio !== 'object' || audio === null || Array.isArray(audio))
    throw invalidStart(`audio is required: {"encoding":"pcm16","sample_rate":${SAMPLE_RATE},"channels":1}`);
  const unknownAudio = Object.keys(audio).find((k) => !AUDIO_FIELDS.includes(k));
  if (unknownAudio !== undefined) throw invalidStart(unknownFieldMessage(unknownAudio, AUDIO_FIELDS, 'audio'));
  if (audio.encoding !== 'pcm16') throw invalidStart('audio.encoding must be "pcm16"');
  if (audio.sample_rate !== SAMPLE_RATE) throw invalidStart(`audio.sample_rate must be ${SAMPLE_RATE}`);
  if (audio.channels !== 1) throw invalidStart('audio.channels must be 1');
  if (typeof m.language !== 'string' || !(LANGUAGE_FAMILIES as readonly string[]).includes(m.language)) {
    throw invalidStart(`language must be one of ${LANGUAGE_FAMILIES.join(', ')}`);
  }
  let diarization = false;
  let knownSpeakers: string[] = [];
  if (m.diarization !== undefined) {
    const d = m.diarization as Record<string, unknown>;
    const shape = (k: string) => k === 'enabled' || k === 'known_speakers';
    if (typeof d !== 'object' || d === null || Array.isArray(d) || Object.keys(d).some((k) => !shape(k)) || typeof d.enabled !== 'boolean') {
      throw invalidStart('diarization must be {"enabled":true|false} (with "known_speakers":[voice ids] when enabled)');
    }
    diarization = d.enabled;
    if (d.known_speakers !== undefined) knownSpeakers = startKnownSpeakers(d.known_speakers, diarization);
  }
  if (m.event_schema !== EVENT_SCHEMA) throw invalidStart(`event_schema must be "${EVENT_SCHEMA}"`);
  if (typeof m.session_id !== 'string' || !SESSION_ID.test(m.session_id)) throw invalidStart('session_id must be 1 to 128 letters, digits or . _ : -');
  if (m.model !== undefined && !(MODEL_IDS as readonly string[]).includes(m.model as string))
    throw invalidStart(`model must be one of ${MODEL_IDS.join(', ')}`);
  if (m.dictionary !== undefined && typeof m.dictionary !== 'boolean') throw invalidStart('dictionary must be true or false');
  return {
    credential,
    language: m.language as LanguageFamily,
    diarization,
    knownSpeakers,
    sessionId: m.session_id,
    model: (m.model as ModelId | undefined) ?? FLAGSHIP_MODEL,
    vocabulary: m.vocabulary === undefined ? [] : sessionVocabulary(m.vocabulary, m.language as LanguageFamily),
    dictionary: m.dictionary !== false,
    patterns: m.patterns === undefined ? [] : startPatterns(m.patterns),
    clinicalText: parseClinicalTextFields(m, 'json'),
    clinicalTextSent: { smart_format: m.smart_format, redact: m.redact, redact_substitution: m.redact_substitution },
  };
}

/** 1 to MAX_KNOWN_SPEAKERS distinct ids, with diarization enabled (whether they are the tenant's is the session's to find out). */
function startKnownSpeakers(value: unknown, enabled: boolean): string[] {
  if (!enabled) throw invalidStart('diarization.known_speakers needs diarization enabled');
  if (!Array.isArray(value) || value.length < 1 || value.length > MAX_KNOWN_SPEAKERS || value.some((id) => typeof id !== 'string' || id === '')) {
    throw invalidStart(`diarization.known_speakers must be an array of 1 to ${MAX_KNOWN_SPEAKERS} ids of enrolled voices`);
  }
  if (new Set(value).size !== value.length) throw invalidStart('diarization.known_speakers must not repeat a voice');
  return value as string[];
}

/** `api_key` or `client_secret`, exactly one, a non-empty string (whether it is valid is the session's to find out). */
function startCredential(m: Record<string, unknown>): StartCredential {
  if (m.api_key !== undefined && m.client_secret !== undefined) throw invalidStart('send api_key or client_secret, not both');
  if (m.client_secret !== undefined) {
    if (typeof m.client_secret !== 'string' || m.client_secret === '') throw invalidStart('client_secret must be a non-empty string');
    return { kind: 'client_secret', secret: m.client_secret };
  }
  if (typeof m.api_key !== 'string' || m.api_key === '') throw invalidStart('api_key (or client_secret) is required');
  return { kind: 'api_key', key: m.api_key };
}

/** Terms by the upload's rules (vocabulary-terms.ts); also for `update_vocabulary`. Throws a PipelineError naming the rule. */
export function sessionVocabulary(value: unknown, language: LanguageFamily): string[] {
  return validateTerms(value, language);
}

function startPatterns(value: unknown): string[] {
  if (!Array.isArray(value) || value.some((p) => typeof p !== 'string')) throw invalidStart('patterns must be a JSON array of strings');
  if ((value as string[]).reduce((sum, p) => sum + p.length, 0) > MAX_PATTERNS_LENGTH)
    throw invalidStart(`patterns are at most ${MAX_PATTERNS_LENGTH} characters`);
  return checkPatterns((value as string[]).map((p) => p.trim()));
}

/** A refusal of the start: its message names the field and never echoes it. */
function invalidStart(message: string): PipelineError {
  return new InvalidRequestField(message);
}
