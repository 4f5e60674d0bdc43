// The transcription use case's view of a playground upload (src/application/transcription-connection.ts).
// The console reads the multipart form itself first (the session's CSRF token and the chosen key are
// in it, and the use case needs the key before it asks for the upload), so "receiving" the upload
// here is handing over the file already received, with the form's fields as the API's route would
// have them. The console answers inline with a page: no stream is offered, and a job is named by id.
import { rename } from 'node:fs/promises';

import type { FastifyReply } from 'fastify';

import { RequestUsage } from '../application/request-usage.js';
import type { TranscriptionConnection, UploadedAudio } from '../application/transcription-connection.js';
import type { StoredResponse } from '../store/idempotency-store.js';
import type { JobRecord } from '../store/job-store.js';

export interface PlaygroundConnection extends TranscriptionConnection {
  /** The job the upload became (audio longer than the inline boundary), once accepted; else null. */
  readonly job: JobRecord | null;
}

export function playgroundConnection(reply: FastifyReply, received: UploadedAudio): PlaygroundConnection {
  let job: JobRecord | null = null;
  return {
    receiveUpload: async (path) => {
      await rename(received.path, path);
      return { ...received, path };
    },
    // No profile field on the playground's form: nothing deprecated to announce.
    admitted: () => undefined,
    watchHangUp: (abort) => {
      // As the API's route: the page went away (a closed tab) before the answer was written.
      const onClose = () => {
        if (!reply.raw.writableFinished) abort.abort();
      };
      reply.raw.on('close', onClose);
      return () => reply.raw.off('close', onClose);
    },
    openStream: () => {
      throw new Error('the playground never asks for a stream');
    },
    jobAccepted: (accepted): StoredResponse => {
      job = accepted;
      return { status: 202, headers: {}, body: JSON.stringify({ id: accepted.id }) };
    },
    usage: new RequestUsage(),
    get job() {
      return job;
    },
  };
}
