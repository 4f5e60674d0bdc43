// The transcription use case's view of an HTTP request (src/application/transcription-connection.ts):
// the multipart upload, the deprecation headers, the request's 'close' as the client hanging up, a
// server-sent event stream, the 202 a new job is answered with, and the request's usage (its audio
// length and billing outcome), put on the request for its line in the access audit log.
import type { FastifyReply, FastifyRequest } from 'fastify';

import { RequestUsage } from '../../application/request-usage.js';
import type { TranscriptionConnection } from '../../application/transcription-connection.js';
import type { ServiceConfig } from '../../config/service-config.js';
import type { BlobStore } from '../../store/blob-store.js';
import { applyProfileDeprecation } from '../deprecation.js';
import { acceptedJobAnswer } from './accepted-job-answer.js';
import { receiveUpload } from './receive-upload.js';
import { streamedAnswer } from './transcription-stream.js';

export function httpTranscriptionConnection(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: { config: ServiceConfig; blobs: Pick<BlobStore, 'createUploadStream'> },
): TranscriptionConnection {
  const { config } = deps;
  const usage = new RequestUsage();
  request.usage = usage;
  return {
    receiveUpload: (path) =>
      receiveUpload(request, deps.blobs, path, { ...config.upload, maxBytes: config.maxUploadBytes }).catch((error: unknown) => {
        // The rest of the body will not be read: close the connection once the answer is out, rather
        // than leave the client's half-sent request holding it open.
        reply.header('connection', 'close');
        throw error;
      }),
    admitted: (profile) => applyProfileDeprecation(reply, profile),
    watchHangUp: (abort) => {
      // The response's close, not the request's (Node closes the request once its body is read): the
      // connection went away before the answer was written (a reset, or a write refused by a client that
      // closed; a half-close alone is not a hang-up: node-http-server.ts).
      const onClose = () => {
        if (!reply.raw.writableFinished) abort.abort();
      };
      reply.raw.on('close', onClose);
      return () => reply.raw.off('close', onClose);
    },
    openStream: (abort) => streamedAnswer(request, reply, abort),
    jobAccepted: (job) => acceptedJobAnswer(job, config.publicBaseUrl),
    usage,
  };
}
