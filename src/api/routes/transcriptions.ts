// POST /v1/audio/transcriptions (and /v1/audio/translations, whisper's translate task): the request
// is read into the use case's input, src/application/transcribe-upload.ts does the work (billing,
// the upload, the checks, an inline answer or a durable job), and its answer is written here: a
// job's stored 202, the transcript in its response format, or nothing more once it was streamed.
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { transcribeUpload, type UploadTranscription } from '../../application/transcribe-upload.js';
import type { TranscribeUploadDeps } from '../../application/transcribe-upload-deps.js';
import { responseBody } from '../../contract/response-body.js';
import { parseTranscriptionFields } from '../../contract/transcription-request.js';
import { parseTranslationFields } from '../../contract/translation-request.js';
import { httpTranscriptionConnection } from './http-transcription-connection.js';
import { idempotencyKeyOf, replay } from './idempotency.js';
import { CREATE_TRANSCRIPTION_SCHEMA, CREATE_TRANSLATION_SCHEMA } from './transcription-schemas.js';

export type TranscriptionRouteDeps = TranscribeUploadDeps;

export function transcriptionRoutes(deps: TranscriptionRouteDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    await app.register(multipart);
    app.post('/v1/audio/transcriptions', { schema: CREATE_TRANSCRIPTION_SCHEMA }, (request, reply) => handle(request, reply, deps, parseTranscriptionFields));
    // Whisper's translate task: the same upload, checks and routing (inline or a job), English text out.
    app.post('/v1/audio/translations', { schema: CREATE_TRANSLATION_SCHEMA }, (request, reply) => handle(request, reply, deps, parseTranslationFields));
  };
}

async function handle(request: FastifyRequest, reply: FastifyReply, deps: TranscriptionRouteDeps, parseFields: UploadTranscription['parseFields']) {
  const key = request.apiKey!;
  const input = { key, requestId: request.id, idempotencyKey: idempotencyKeyOf(request), parseFields, log: request.log };
  const answer = await transcribeUpload(input, httpTranscriptionConnection(request, reply, deps), deps);
  if (answer.kind === 'stored') return replay(reply, answer.response);
  if (answer.kind === 'streamed') return reply;
  const { contentType, body } = responseBody(answer.outcome, answer.transcription.responseFormat, answer.context, { logprobs: answer.transcription.logprobs });
  return reply.code(200).type(contentType).send(body);
}
