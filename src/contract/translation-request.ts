// Validates the form of POST /v1/audio/translations: whisper's translate task, English text out. The
// fields are OpenAI's for translations (model, prompt, response_format, temperature) and those of the
// transcription route that mean the same here: `language` names the spoken language (a tag, `auto`, or
// omitted as on transcriptions) and `webhook_url` makes the request a job. Fields that shape a
// transcript this route does not make (speakers, word times, vocabulary audit, patterns, streaming)
// are refused, never ignored.
import type { ApiKeyRecord } from '../domain/api-keys.js';
import { unknownFieldMessage } from '../domain/field-names.js';
import { MODEL_IDS } from '../domain/model-ids.js';
import { EntitlementMissing, InvalidRequestField, UnprocessableRequest } from '../pipeline/pipeline-errors.js';
import { isChunkingStrategyField } from './chunking-strategy.js';
import { NO_CLINICAL_TEXT } from './clinical-text-fields.js';
import { redactsAlways } from './key-text-defaults.js';
import { parsePrompt } from './prompt-field.js';
import { DEFAULT_TRANSLATION_FORMAT, fieldNamesOf, TRANSLATION_FORMATS } from './request-fields.js';
import { DEFAULT_SPEAKER_COUNT } from './speaker-count.js';
import { oneOf, parseLanguageChoice, parseTemperature, TRANSCRIPTION_FIELDS, type TranscriptionRequest } from './transcription-request.js';
import { validateWebhookUrl } from './webhook-url.js';
export const TRANSLATION_FIELDS = fieldNamesOf('translations');

export function parseTranslationFields(fields: Record<string, string>, key: ApiKeyRecord): TranscriptionRequest {
  for (const name of Object.keys(fields)) {
    if ((TRANSLATION_FIELDS as readonly string[]).includes(name)) continue;
    if ((TRANSCRIPTION_FIELDS as readonly string[]).includes(name) || isChunkingStrategyField(name)) {
      throw new UnprocessableRequest(`${name.replace(/\[.*$/, '')} is a transcription field: translations take ${TRANSLATION_FIELDS.join(', ')}`);
    }
    throw new InvalidRequestField(unknownFieldMessage(name, TRANSLATION_FIELDS));
  }
  // A translation's English is not redacted (docs/API.md "Redaction"), so a key that must redact cannot have one.
  if (redactsAlways(key)) throw new EntitlementMissing('this key redacts every transcript, and translations cannot be redacted');
  return {
    task: 'translate',
    model: oneOf(fields.model, MODEL_IDS, undefined, 'model'),
    responseFormat: oneOf(fields.response_format, TRANSLATION_FORMATS, DEFAULT_TRANSLATION_FORMAT, 'response_format'),
    language: parseLanguageChoice(fields, key),
    diarize: false,
    ...DEFAULT_SPEAKER_COUNT,
    wordTimestamps: false,
    // The key's dictionary holds terms of the spoken language, not of the English text.
    dictionary: false,
    vocabulary: [],
    prompt: parsePrompt(fields.prompt),
    patterns: [],
    webhookUrl: fields.webhook_url === undefined || fields.webhook_url === '' ? null : validateWebhookUrl(fields.webhook_url),
    profile: 'default',
    stream: false,
    temperature: parseTemperature(fields.temperature),
    logprobs: false,
    vad: null,
    knownSpeakerReferences: [],
    enrolledVoiceIds: [],
    clinicalText: NO_CLINICAL_TEXT,
    multichannel: false,
  };
}
