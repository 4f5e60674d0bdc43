// Enrolled voices (POST/GET/DELETE /v1/voices) as JSON Schema: the enrolment form, a voice, a list of
// them and a deletion. A voice is shown by id, name and time: its statistics never leave the server.
import { MAX_KNOWN_SPEAKER_NAME_LENGTH } from '../contract/known-speaker-fields.js';
import { ENROLMENT_MAX_SECONDS, ENROLMENT_MIN_SECONDS } from '../pipeline/reference-clip.js';
import { boolean, ref, string } from './openapi-schema-builders.js';
import type { Schema } from './openapi-types.js';

const VOICE_ID_PATTERN = '^voice_[0-9A-Za-z]{24}$';

export const voiceEnrolment: Schema = {
  type: 'object',
  required: ['name', 'file'],
  properties: {
    name: string({
      minLength: 1,
      maxLength: MAX_KNOWN_SPEAKER_NAME_LENGTH,
      description: 'The label the voice carries when it matches (`speaker`); not a single capital letter nor `unknown`.',
    }),
    file: string({
      format: 'binary',
      description:
        `${ENROLMENT_MIN_SECONDS} to ${ENROLMENT_MAX_SECONDS} s of the person speaking alone, in any format the transcription route takes. ` +
        'Only speaker statistics are kept, never the audio.',
    }),
  },
};

export const voice: Schema = {
  type: 'object',
  required: ['id', 'object', 'name', 'created_at'],
  additionalProperties: false,
  properties: {
    id: string({ pattern: VOICE_ID_PATTERN }),
    object: string({ const: 'voice' }),
    name: string(),
    created_at: string({ format: 'date-time' }),
  },
};

export const voiceList: Schema = {
  type: 'object',
  required: ['object', 'data'],
  additionalProperties: false,
  properties: { object: string({ const: 'list' }), data: { type: 'array', items: ref('Voice') } },
};

export const deletedVoice: Schema = {
  type: 'object',
  required: ['id', 'object', 'deleted'],
  additionalProperties: false,
  properties: { id: string({ pattern: VOICE_ID_PATTERN }), object: string({ const: 'voice' }), deleted: boolean({ const: true }) },
};
