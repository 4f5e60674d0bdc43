// /v1/voices: enrol a voice (POST, a multipart form with `name` and `file`), list them, read one,
// delete one. The upload is received into a spool file, given to src/application/enrolled-voices.ts,
// and removed whatever the outcome: only the voice's statistics are kept.
import { rm } from 'node:fs/promises';

import multipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';

import { deleteVoice, type EnrolledVoiceDeps, enrolVoice, listVoices, readVoice } from '../../application/enrolled-voices.js';
import type { ServiceConfig } from '../../config/service-config.js';
import { ENROLMENT_MAX_SECONDS, ENROLMENT_MIN_SECONDS } from '../../pipeline/reference-clip.js';
import type { VoiceSummary } from '../../store/voice-profile-store.js';
import { receiveUpload } from './receive-upload.js';
import { DELETE_VOICE_SCHEMA, ENROL_VOICE_SCHEMA, GET_VOICE_SCHEMA, LIST_VOICES_SCHEMA } from './voice-schemas.js';

export interface VoiceRouteDeps extends EnrolledVoiceDeps {
  config: Pick<ServiceConfig, 'upload'>;
}

/** 30 s of audio is a few megabytes even as 48 kHz stereo WAV. */
const MAX_ENROLMENT_BYTES = 16 * 1024 * 1024;

const voiceJson = (voice: VoiceSummary) => ({ id: voice.id, object: 'voice' as const, name: voice.name, created_at: voice.createdAt });

export function voiceRoutes(deps: VoiceRouteDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    await app.register(multipart);
    app.post('/v1/voices', { schema: ENROL_VOICE_SCHEMA }, async (request, reply) => {
      const path = deps.blobs.createUploadPath('voice');
      try {
        const upload = await receiveUpload(request, deps.blobs, path, {
          ...deps.config.upload,
          maxBytes: MAX_ENROLMENT_BYTES,
          largerFileAdvice: `an enrolment is ${ENROLMENT_MIN_SECONDS} to ${ENROLMENT_MAX_SECONDS} s of the speaker alone`,
        }).catch((error: unknown) => {
          // The rest of the body will not be read: close the connection once the answer is out.
          reply.header('connection', 'close');
          throw error;
        });
        const voice = await enrolVoice({ key: request.apiKey!, requestId: request.id, log: request.log, fields: upload.fields, audioPath: upload.path }, deps);
        return reply.code(201).send(voiceJson(voice));
      } finally {
        await rm(path, { force: true });
      }
    });
    app.get('/v1/voices', { schema: LIST_VOICES_SCHEMA }, async (request) => {
      const voices = await listVoices({ key: request.apiKey!, requestId: request.id, log: request.log }, deps);
      return { object: 'list', data: voices.map(voiceJson) };
    });
    app.get<{ Params: { voice_id: string } }>('/v1/voices/:voice_id', { schema: GET_VOICE_SCHEMA }, async (request) => {
      return voiceJson(await readVoice({ key: request.apiKey!, requestId: request.id, log: request.log, voiceId: request.params.voice_id }, deps));
    });
    app.delete<{ Params: { voice_id: string } }>('/v1/voices/:voice_id', { schema: DELETE_VOICE_SCHEMA }, async (request) => {
      await deleteVoice({ key: request.apiKey!, requestId: request.id, log: request.log, voiceId: request.params.voice_id }, deps);
      return { id: request.params.voice_id, object: 'voice', deleted: true };
    });
  };
}
