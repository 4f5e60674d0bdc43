// The route schemas of /v1/voices: enrol (a multipart form, read as a stream like the transcription
// route's, its fields checked by src/application/enrolled-voices.ts), list, read and delete.
import { schemas } from '../openapi-components.js';
import { BEARER } from '../openapi-document.js';
import { answerHeaders, errorResponses } from '../openapi-responses.js';
import { ref } from '../openapi-schema-builders.js';
import type { ParameterSchema, RouteSchema } from '../openapi-types.js';

const VOICE_ID_PARAMS: ParameterSchema = { type: 'object', required: ['voice_id'], properties: { voice_id: { type: 'string' } } };
const AUDIO_TYPES = 'audio/wav, audio/mpeg, audio/mp4, audio/webm, audio/ogg, audio/flac, audio/aac, application/octet-stream';
const json = (schema: string) => ({ 'application/json': { schema: ref(schema) } });

export const ENROL_VOICE_SCHEMA: RouteSchema = {
  operationId: 'enrolVoice',
  summary: "Enrol a voice for the key's tenant",
  description:
    'Stores the speaker statistics of 5 to 30 s of one person speaking alone (never the audio), so requests name the voice by id ' +
    '(`known_speakers`). Voice profiles are biometric data: per tenant, deletable at once, and every enrolment, read, use and deletion ' +
    'is an audit line. Silence, music or noise, two voices, or audio too short or too long is 422.',
  tags: ['voices'],
  security: BEARER,
  multipartBody: { schema: schemas.VoiceEnrolment, encoding: { file: { contentType: AUDIO_TYPES } } },
  response: {
    '201': { description: 'The enrolled voice.', headers: answerHeaders(), content: json('Voice') },
    ...errorResponses([400, 408, 413, 415, 422]),
  },
};

export const LIST_VOICES_SCHEMA: RouteSchema = {
  operationId: 'listVoices',
  summary: "The tenant's enrolled voices, oldest first",
  tags: ['voices'],
  security: BEARER,
  response: { '200': { description: 'The voices (never their statistics).', headers: answerHeaders(), content: json('VoiceList') }, ...errorResponses([]) },
};

export const GET_VOICE_SCHEMA: RouteSchema = {
  operationId: 'getVoice',
  summary: 'One enrolled voice',
  description: "Another tenant's voice is 404, as an unknown id is.",
  tags: ['voices'],
  security: BEARER,
  params: VOICE_ID_PARAMS,
  response: { '200': { description: 'The voice.', headers: answerHeaders(), content: json('Voice') }, ...errorResponses([404]) },
};

export const DELETE_VOICE_SCHEMA: RouteSchema = {
  operationId: 'deleteVoice',
  summary: 'Delete an enrolled voice now',
  description: "Its statistics are gone at once; requests naming it are then refused (422). Another tenant's voice is 404.",
  tags: ['voices'],
  security: BEARER,
  params: VOICE_ID_PARAMS,
  response: { '200': { description: 'Deleted.', headers: answerHeaders(), content: json('DeletedVoice') }, ...errorResponses([404]) },
};
