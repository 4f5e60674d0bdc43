// `stream=true` on POST /v1/audio/transcriptions: the answer as server-sent events in OpenAI's shapes
// (their published schema's CreateTranscriptionResponseStreamEvent): `transcript.text.delta` as the
// text is decoded, `transcript.text.segment` per segment for diarized_json once speakers are known,
// then `transcript.text.done` with the whole text, which equals the non-streamed answer's (and, when
// redacted, its `redactions` and `redaction_counts`). With smart_format or redact the deltas come only
// once the whole text is shaped (src/application/answer-inline.ts).
//
// The stream opens (status 200) at the first event. A refusal or failure before it is an ordinary
// error answer; after it, the error is the last event, carrying the contract's envelope
// ({"error":{"code","message"}}, which the official client raises as an APIError), and the stream
// ends. A client that hangs up stops the decoding: while the answer is being decoded a comment line
// (which event-stream readers ignore) is written every KEEP_ALIVE_MS, so a client that closed its
// connection is noticed within about two of them (its kernel refuses the first write, the next one
// fails), not only at the next delta.
import { PassThrough } from 'node:stream';

import type { FastifyReply, FastifyRequest } from 'fastify';

import type { TranscriptStream } from '../../application/transcription-connection.js';
import { redactionFields, STREAM_EVENT_TYPES, verboseBody } from '../../contract/response-body.js';
import { mapError } from '../error-mapping.js';

export const EVENT_STREAM_TYPE = 'text/event-stream; charset=utf-8';

const KEEP_ALIVE_MS = 500;

export function streamedAnswer(request: FastifyRequest, reply: FastifyReply, abort: AbortController): TranscriptStream {
  let body: PassThrough | null = null;
  let ended = false;
  const open = (): PassThrough => {
    if (body) return body;
    body = new PassThrough();
    const stream = body;
    const keepAlive = setInterval(() => {
      if (!ended) stream.write(': keep-alive\n\n');
    }, KEEP_ALIVE_MS);
    // Once the answer is a stream, a client that leaves mid-stream must stop the decoding.
    reply.raw.on('close', () => {
      clearInterval(keepAlive);
      if (!ended) abort.abort();
    });
    stream.on('finish', () => clearInterval(keepAlive));
    reply.code(200).type(EVENT_STREAM_TYPE).header('cache-control', 'no-cache').header('x-accel-buffering', 'no').send(body);
    return body;
  };
  const event = (data: Record<string, unknown>) => {
    if (!ended) open().write(`data: ${JSON.stringify(data)}\n\n`);
  };
  const end = () => {
    if (ended) return;
    open();
    ended = true;
    body!.end();
  };
  return {
    onTextDelta: (delta) => event({ type: STREAM_EVENT_TYPES.delta, delta }),
    finish(outcome, format, ctx) {
      if (format === 'diarized_json') for (const segment of verboseBody(outcome, ctx).segments) event(segment);
      event({ type: STREAM_EVENT_TYPES.done, text: outcome.text, ...redactionFields(outcome) });
      end();
    },
    get opened() {
      return body !== null;
    },
    fail(error) {
      const { apiError, unexpected } = mapError(error);
      if (unexpected) request.log.error({ err: error, route: request.routeOptions.url ?? null }, 'unexpected error in a streamed answer');
      event(apiError.toBody());
      end();
    },
  };
}
