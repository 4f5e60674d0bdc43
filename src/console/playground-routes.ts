// The playground's upload tab: a signed-in user transcribes a recording as one of their tenant's
// active keys. The API's use case runs it (src/application/transcribe-upload.ts) with the API's deps,
// so billing, limits and refusals are exactly a request of that key's; the answer is the API's
// verbose_json body, rendered as a page. The form's fields are the API's own (same names, same
// parser); the console adds only the response format its page reads. Audio longer than the inline
// boundary becomes a job of the key, as on the API: the page names it (its result is the API's to
// fetch, with the key). One `console audit` line per transcription: ids, the answer's status and
// what billing made of it; never the audio, the transcript, the terms or the file's name. Each
// transcription takes from the key's request rate with the API's own requests (KeyRateLimiter) and is
// a use of the key (its "last used", through the API's KeyUseRecorder). An answer is shown by a
// redirect to its own page (playground-results.ts), so a reload never transcribes again. The
// realtime tab's routes (playground-realtime-routes.ts) share this scope: its CSP and its assets.
import { rm } from 'node:fs/promises';

import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { mapError } from '../api/error-mapping.js';
import { generateRequestId } from '../api/request-id.js';
import { receiveUpload } from '../api/routes/receive-upload.js';
import { transcribeUpload } from '../application/transcribe-upload.js';
import type { UploadedAudio } from '../application/transcription-connection.js';
import { verboseBody } from '../contract/response-body.js';
import { parseTranscriptionFields, TRANSCRIPTION_FIELDS } from '../contract/transcription-request.js';
import type { ApiKeyRecord } from '../domain/api-keys.js';
import { InvalidRequestField } from '../pipeline/pipeline-errors.js';
import type { ConsoleSession } from '../store/console-account-store.js';
import { MICROPHONE_WORKLET_JS, PLAYGROUND_JS, PLAYGROUND_REALTIME_JS } from './console-assets.js';
import { type ConsoleContext, html } from './console-context.js';
import { playgroundContentSecurityPolicy, tokensMatch } from './console-http.js';
import { messagePage, type Notice } from './console-layout.js';
import { playgroundConnection } from './playground-connection.js';
import { type PlaygroundForm, playgroundPage } from './playground-page.js';
import { realtimeUrlFor } from './playground-realtime-address.js';
import { registerPlaygroundRealtimeRoutes } from './playground-realtime-routes.js';
import { playgroundResult } from './playground-result.js';
import { PLAYGROUND_RESULT_MS, PlaygroundResults } from './playground-results.js';

/** The API fields the playground's form offers; anything else sent is refused, never passed on unseen. */
const FORWARDED_FIELDS: readonly string[] = [
  'model',
  'language',
  'language_hints',
  'diarize',
  'min_speakers',
  'max_speakers',
  'dictionary',
  'vocabulary',
  'patterns',
  'timestamp_granularities[]',
  'smart_format',
  'redact',
  'multichannel',
] satisfies ReadonlyArray<(typeof TRANSCRIPTION_FIELDS)[number]>;
/** The console's own fields of the form. */
const CONSOLE_FIELDS = ['csrf', 'key_id'];
/** The format the page is rendered from: segments, words, speakers, languages and the vocabulary audit. */
const RESPONSE_FORMAT = 'verbose_json';

export function registerPlaygroundRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const results = new PlaygroundResults();
  for (const [path, script] of [
    ['/assets/playground.js', PLAYGROUND_JS],
    ['/assets/playground-realtime.js', PLAYGROUND_REALTIME_JS],
    ['/assets/playground-microphone.js', MICROPHONE_WORKLET_JS],
  ]) {
    app.get(path, async (_request, reply) => reply.type('text/javascript; charset=utf-8').send(script));
  }
  void app.register(async (scope) => {
    await scope.register(multipart);
    // The playground's pages play the chosen file (blob: media) and stream to the realtime listener:
    // their CSP allows exactly that, on these pages only (runs after the console's own onSend hook).
    scope.addHook('onSend', async (request, reply, payload) => {
      const realtime = ctx.deps.realtimeUrl === null ? null : realtimeUrlFor(ctx.deps.realtimeUrl, request.hostname);
      reply.header('content-security-policy', playgroundContentSecurityPolicy(realtime));
      return payload;
    });

    scope.get('/playground', async (request, reply) => {
      const session = await ctx.signedIn(request, reply);
      if (!session) return reply;
      return html(reply, playgroundPage(ctx.pageUser(session), await tenantKeys(ctx, session), {}, '', null));
    });

    scope.post('/playground', async (request, reply) => {
      const session = await ctx.signedIn(request, reply);
      if (!session) return reply;
      const received = ctx.deps.transcription.blobs.createUploadPath('console');
      try {
        return await transcribe(request, reply, ctx, session, received, results);
      } finally {
        await rm(received, { force: true });
      }
    });
    scope.get<{ Params: { id: string } }>('/playground/results/:id', async (request, reply) => {
      const session = await ctx.signedIn(request, reply);
      if (!session) return reply;
      const view = results.read(session.csrfToken, request.params.id);
      const keys = await tenantKeys(ctx, session);
      if (view) return html(reply, playgroundPage(ctx.pageUser(session), keys, view.form, view.result, view.notice));
      const gone =
        `This answer is no longer kept: answers stay ${PLAYGROUND_RESULT_MS / 60_000} minutes, for the session that asked. ` + 'Transcribe the file again.';
      return html(reply.code(404), playgroundPage(ctx.pageUser(session), keys, {}, '', { kind: 'error', text: gone }));
    });
    registerPlaygroundRealtimeRoutes(scope, ctx);
  });
}

async function tenantKeys(ctx: ConsoleContext, session: ConsoleSession): Promise<ApiKeyRecord[]> {
  return ctx.deps.keys.list(session.user.tenant);
}

async function transcribe(
  request: FastifyRequest,
  reply: FastifyReply,
  ctx: ConsoleContext,
  session: ConsoleSession,
  receivedPath: string,
  results: PlaygroundResults,
) {
  const { config, blobs } = ctx.deps.transcription;
  const user = ctx.pageUser(session);
  const page = async (status: number, form: PlaygroundForm, result: string, notice: Notice | null) =>
    html(reply.code(status), playgroundPage(user, await tenantKeys(ctx, session), form, result, notice));
  // What ran is shown on a page of its own (303 to a GET): the form as sent, without its token.
  const shown = (form: PlaygroundForm, result: string, notice: Notice | null) => {
    const { csrf: _token, ...sent } = form;
    const id = results.keep(session.csrfToken, { form: sent, result, notice });
    return reply.code(303).header('location', `/playground/results/${id}`).send();
  };

  let upload: UploadedAudio;
  try {
    upload = await receiveUpload(request, blobs, receivedPath, { ...config.upload, maxBytes: config.maxUploadBytes });
  } catch (error) {
    // The form never arrived whole, so no CSRF token was read either: nothing is done with it.
    const { apiError } = mapError(error);
    return page(apiError.status, {}, '', { kind: 'error', text: `Not sent: ${apiError.message}.` });
  }
  const form: PlaygroundForm = upload.fields;
  // As ctx.change does for the console's other forms: the session's token, compared in constant time.
  if (!tokensMatch(form.csrf, session.csrfToken)) {
    return html(reply.code(403), messagePage('Refused', 'The form was stale or not the console’s: reload the page and try again.', user));
  }
  // Another tenant's key, a revoked one or none: answered as an unknown key.
  const key = form.key_id ? await ctx.deps.keys.get(form.key_id) : null;
  if (!key || key.tenant !== session.user.tenant || key.revokedAt !== null) {
    return page(404, form, '', { kind: 'error', text: 'No such key.' });
  }

  const requestId = generateRequestId();
  const connection = playgroundConnection(reply, { ...upload, fields: apiFields(upload.fields) });
  const audit = (status: number, extra: Record<string, string | number> = {}) =>
    ctx.audit(request, session, 'playground_transcription', { keyId: key.id, requestId, status, ...connection.usage.fields(), ...extra });
  const input = { key, requestId, idempotencyKey: null, parseFields: parseForwardedFields, log: request.log };
  // A use of the key, as an API request the key authenticates is (its "last used"), whatever comes of it next.
  ctx.deps.keyUse.record(key);
  try {
    // A request of the key's, counted where the API counts the key's requests: one bucket for both.
    ctx.deps.keyRate.take(key);
    const answer = await transcribeUpload(input, connection, ctx.deps.transcription);
    if (answer.kind === 'transcript') {
      audit(200);
      const body = verboseBody(answer.outcome, answer.context);
      return shown(form, playgroundResult(body), null);
    }
    const job = connection.job;
    audit(202, job ? { jobId: job.id } : {});
    const text = job
      ? `The recording is longer than ${config.inlineBoundarySeconds} seconds, so it became job ${job.id} of key ${key.id}, billed when it succeeds ` +
        `as any job of the key. The playground answers shorter recordings only; fetch the job's result with the key (GET /v1/jobs/${job.id}).`
      : 'The recording became a job of the key.';
    return shown(form, '', { kind: 'ok', text });
  } catch (error) {
    const { apiError, unexpected } = mapError(error);
    if (unexpected) request.log.error({ err: error }, 'playground transcription failed');
    audit(apiError.status, { errorCode: apiError.code });
    // The API's headers too (Retry-After of a 429 or 503), and the wait in words for the person reading the page.
    reply.headers(apiError.headers);
    const retryAfter = apiError.headers['retry-after'];
    const wait = retryAfter === undefined ? '' : ` Try again in ${retryAfter} s.`;
    return page(apiError.status, form, '', { kind: 'error', text: `The API refused it (${apiError.status} ${apiError.code}): ${apiError.message}.${wait}` });
  }
}

/**
 * The API's fields of the form, as its route would receive them: the console's own fields out,
 * empty inputs left out (an empty field is one the user did not fill in, as the API's clients send
 * nothing), and the response format the page is rendered from. A field the form does not have is
 * kept, for the parser below to refuse.
 */
function apiFields(fields: Record<string, string>): Record<string, string> {
  const sent = Object.entries(fields).filter(([name, value]) => !CONSOLE_FIELDS.includes(name) && value !== '');
  return { ...Object.fromEntries(sent), response_format: RESPONSE_FORMAT };
}

/** The API's parser, after refusing any field the playground does not offer (its own, or one crafted). */
function parseForwardedFields(fields: Record<string, string>, key: ApiKeyRecord) {
  if (Object.keys(fields).some((name) => name !== 'response_format' && !FORWARDED_FIELDS.includes(name))) {
    throw new InvalidRequestField(`the playground takes only these fields: ${FORWARDED_FIELDS.join(', ')}`);
  }
  return parseTranscriptionFields(fields, key);
}
