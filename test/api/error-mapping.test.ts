// mapError: which contract error each kind of failure becomes; messages are fixed texts.
import t from 'tap';

import { ApiError } from '../../src/api/api-error.js';
import { mapError } from '../../src/api/error-mapping.js';
import {
  ApplicationError,
  type ApplicationErrorKind,
  AudioLongerThanAllowed,
  AudioShorterThanAllowed,
  CredentialRefused,
  EnginesAtCapacity,
  IdempotencyConflict,
  IdempotencyInProgress,
  InlineOnlyOption,
  JobNotFound,
  KeyRevoked,
  ResultNotAvailable,
  TooManyVoices,
  TranscriptionCancelled,
  UnusableKnownSpeaker,
  UploadNotComplete,
  VoiceNotFound,
} from '../../src/application/application-errors.js';
import {
  AudioError,
  type AudioErrorCode,
  AudioTooLongError,
  AudioTooShortError,
  DecodeAbortedError,
  DecodeTimeoutError,
  UndecodableAudioError,
  UnsupportedContainerError,
} from '../../src/audio/audio-errors.js';
import { EngineError } from '../../src/engine/engine-errors.js';
import {
  EntitlementMissing,
  InvalidRequestField,
  PipelineError,
  type PipelineErrorKind,
  UnprocessableRequest,
  UnsupportedDetectedLanguage,
} from '../../src/pipeline/pipeline-errors.js';
import {
  DestinationNotAllowed,
  SigningSecretMissing,
  WebhookAdmissionError,
  type WebhookAdmissionErrorKind,
} from '../../src/webhooks/webhook-admission-errors.js';

const withCode = (code: string, statusCode?: number, message = 'framework text with ECHO-CANARY-1234') =>
  Object.assign(new Error(message), { code, ...(statusCode ? { statusCode } : {}) });

t.test('ApiError passes through unchanged', async (t) => {
  const error = new ApiError(409, 'idempotency_conflict', 'x', { a: 'b' });
  t.same(mapError(error), { apiError: error, unexpected: false });
});

t.test('framework and multipart codes', async (t) => {
  const expected: Array<[string, number, string]> = [
    ['FST_ERR_CTP_INVALID_JSON_BODY', 400, 'invalid_request'],
    ['FST_ERR_CTP_EMPTY_JSON_BODY', 400, 'invalid_request'],
    ['FST_ERR_CTP_INVALID_CONTENT_LENGTH', 400, 'invalid_request'],
    ['FST_ERR_CTP_BODY_TOO_LARGE', 413, 'upload_too_large'],
    ['FST_ERR_CTP_INVALID_MEDIA_TYPE', 415, 'unsupported_media_type'],
    ['FST_ERR_BAD_URL', 400, 'invalid_request'],
    ['FST_ERR_MAX_PARAM_LENGTH', 400, 'invalid_request'],
    ['FST_INVALID_MULTIPART_CONTENT_TYPE', 415, 'unsupported_media_type'],
    ['FST_REQ_FILE_TOO_LARGE', 413, 'upload_too_large'],
    ['FST_PARTS_LIMIT', 400, 'invalid_request'],
    ['FST_FILES_LIMIT', 400, 'invalid_request'],
    ['FST_FIELDS_LIMIT', 400, 'invalid_request'],
    ['FST_PROTO_VIOLATION', 400, 'invalid_request'],
    ['FST_INVALID_JSON_FIELD_ERROR', 400, 'invalid_request'],
    ['FST_MP_PREMATURE_CLOSE', 400, 'invalid_request'],
    ['ECONNRESET', 400, 'invalid_request'],
  ];
  for (const [code, status, apiCode] of expected) {
    const { apiError, unexpected } = mapError(withCode(code, 500));
    t.equal(apiError.status, status, `${code} -> ${status}`);
    t.equal(apiError.code, apiCode, `${code} -> ${apiCode}`);
    t.notOk(apiError.message.includes('ECHO-CANARY'), `${code}: fixed message`);
    t.equal(unexpected, false);
  }
});

t.test('busboy errors without codes are malformed multipart, not 500', async (t) => {
  for (const message of [
    'Multipart: Boundary not found',
    'Unexpected end of multipart data',
    'Part terminated early due to unexpected end of multipart data',
  ]) {
    const { apiError, unexpected } = mapError(new Error(message));
    t.equal(apiError.status, 400, message);
    t.equal(unexpected, false);
  }
});

t.test('other client errors by status; everything else is a 500', async (t) => {
  t.equal(mapError(withCode('SOMETHING', 404)).apiError.code, 'not_found');
  t.equal(mapError(withCode('SOMETHING', 408)).apiError.code, 'upload_timeout');
  t.equal(mapError(withCode('SOMETHING', 418)).apiError.status, 400, 'an unlisted 4xx is a 400');
  for (const error of [new Error('ECHO-CANARY-1234'), withCode('X', 502), 'a string', null, undefined, { statusCode: 200 }]) {
    const { apiError, unexpected } = mapError(error);
    t.equal(apiError.status, 500);
    t.equal(apiError.code, 'internal_error');
    t.notOk(apiError.message.includes('ECHO-CANARY'));
    t.equal(unexpected, true);
  }
});

t.test('validation messages name schema fields only', async (t) => {
  const validation = (issues: unknown[], context = 'body') =>
    Object.assign(new Error('x'), { validation: issues, validationContext: context, statusCode: 400 });
  t.equal(
    mapError(validation([{ keyword: 'required', schemaPath: '#/required', params: { missingProperty: 'filename' } }])).apiError.message,
    "the body field 'filename' is required",
  );
  t.equal(
    mapError(validation([{ keyword: 'maximum', schemaPath: '#/properties/wait/maximum', instancePath: '/wait' }], 'querystring')).apiError.message,
    "the query parameter 'wait' is not valid",
  );
  t.equal(
    mapError(validation([{ keyword: 'type', schemaPath: '#/properties/upload/properties/url/type' }])).apiError.message,
    "the body field 'upload.url' is not valid",
  );
  t.equal(
    mapError(validation([{ keyword: 'additionalProperties', schemaPath: '#/additionalProperties', params: { additionalProperty: 'ECHO-CANARY-1234' } }]))
      .apiError.message,
    'the request is not valid',
    'a request-chosen name is never used',
  );
  t.equal(
    mapError(
      validation(
        [
          {
            keyword: 'additionalProperties',
            schemaPath: '#/additionalProperties',
            params: { additionalProperty: 'ECHO-CANARY-1234' },
            parentSchema: { type: 'object', additionalProperties: false, properties: { tenant: { type: 'string' } } },
          },
        ],
        'querystring',
      ),
    ).apiError.message,
    'a query parameter is not one this route takes (only: tenant)',
    'an unknown name: the names the schema takes instead',
  );
  t.equal(
    mapError(validation([{ keyword: 'type', schemaPath: '#/patternProperties/.*/type', instancePath: '/ECHO' }])).apiError.message,
    'the request is not valid',
  );
});

// One example of every kind; a Record over the kind union, so a kind added without a case here fails
// the typecheck, as a kind without a status fails it in error-mapping.ts.
const PIPELINE_CASES: Record<PipelineErrorKind, [PipelineError, number, string, string]> = {
  invalid_request_field: [new InvalidRequestField('model is required'), 400, 'invalid_request', 'model is required'],
  unprocessable_request: [new UnprocessableRequest('webhook_url must use https'), 422, 'invalid_request', 'webhook_url must use https'],
  entitlement_missing: [new EntitlementMissing('this key is not entitled to patterns'), 403, 'entitlement_denied', 'this key is not entitled to patterns'],
  unsupported_detected_language: [new UnsupportedDetectedLanguage('ja'), 422, 'invalid_request', 'the detected language is not supported'],
};

const WEBHOOK_CASES: Record<WebhookAdmissionErrorKind, [WebhookAdmissionError, number, string, string]> = {
  signing_secret_missing: [new SigningSecretMissing(), 422, 'invalid_request', 'webhook_url needs an active webhook signing secret on this key'],
  destination_not_allowed: [
    new DestinationNotAllowed('the host resolves to a non-public address'),
    422,
    'invalid_request',
    'webhook_url is not an allowed destination: the host resolves to a non-public address',
  ],
};

t.test('pipeline and webhook-admission refusals: every kind has its status, code and own message', async (t) => {
  for (const [kind, [error, status, code, message]] of [...Object.entries(PIPELINE_CASES), ...Object.entries(WEBHOOK_CASES)]) {
    t.equal(error.kind, kind, `${error.name} declares its kind`);
    const { apiError, unexpected } = mapError(error);
    t.same({ status: apiError.status, code: apiError.code, message: apiError.message }, { status, code, message }, kind);
    t.same(apiError.headers, {}, `${kind}: no extra headers`);
    t.equal(unexpected, false, `${kind}: a refusal, not a server fault`);
  }
});

t.test('typed refusals carry no HTTP of their own', async (t) => {
  for (const error of [...Object.values(PIPELINE_CASES), ...Object.values(WEBHOOK_CASES)].map(([e]) => e)) {
    t.notOk(error instanceof ApiError, error.name);
    t.notOk('status' in error || 'statusCode' in error, `${error.name}: no status`);
  }
  t.equal(new UnsupportedDetectedLanguage('ja').detected, 'ja', 'the detected tag is kept for logs, out of the message');
});

// The use cases' refusals (src/application/application-errors.ts), and the audio and engine failures
// a request can meet: every kind with the answer the transcription route gave before it was split.
const APPLICATION_CASES: Record<ApplicationErrorKind, [ApplicationError, number, string, string, Record<string, string>]> = {
  audio_too_long: [new AudioLongerThanAllowed(7200), 413, 'upload_too_large', 'the audio is longer than 7200 seconds', {}],
  audio_too_short: [new AudioShorterThanAllowed(0.1), 422, 'invalid_request', 'the audio is shorter than 0.1 second', {}],
  inline_only_option: [
    new InlineOnlyOption('stream=true', 120),
    422,
    'invalid_request',
    'stream=true is answered on this connection for audio up to 120 seconds; longer audio becomes a job: send it without stream=true',
    {},
  ],
  unusable_known_speaker: [
    new UnusableKnownSpeaker('known_speaker_references[0] could not be decoded as audio'),
    422,
    'invalid_request',
    'known_speaker_references[0] could not be decoded as audio',
    {},
  ],
  voice_not_found: [new VoiceNotFound(), 404, 'not_found', 'no enrolled voice of this tenant has that id', {}],
  too_many_voices: [
    new TooManyVoices('a tenant holds at most 200 enrolled voices: delete one first'),
    422,
    'invalid_request',
    'a tenant holds at most 200 enrolled voices: delete one first',
    {},
  ],
  engines_at_capacity: [
    new EnginesAtCapacity(),
    503,
    'capacity_unavailable',
    'the service is at capacity; retry after the Retry-After interval',
    { 'retry-after': '5' },
  ],
  transcription_cancelled: [new TranscriptionCancelled(), 400, 'invalid_request', 'the request was cancelled', {}],
  idempotency_conflict: [new IdempotencyConflict(), 409, 'idempotency_conflict', 'this Idempotency-Key was used with different content', {}],
  idempotency_in_progress: [new IdempotencyInProgress(), 409, 'idempotency_in_progress', 'a request with this Idempotency-Key is in progress', {}],
  key_revoked: [new KeyRevoked(), 401, 'unauthorized', 'a valid API key is required: send Authorization: Bearer <API_KEY>', { 'www-authenticate': 'Bearer' }],
  credential_refused: [
    new CredentialRefused(),
    401,
    'unauthorized',
    'a valid API key is required: send Authorization: Bearer <API_KEY>',
    { 'www-authenticate': 'Bearer' },
  ],
  job_not_found: [new JobNotFound(), 404, 'not_found', 'no job with this id exists for this key', {}],
  upload_not_complete: [
    new UploadNotComplete('slot_closed'),
    409,
    'upload_not_complete',
    'the upload slot of this job is closed (deadline passed or key revoked); create a new job',
    {},
  ],
  result_not_available: [new ResultNotAvailable('expired'), 404, 'not_found', "this job's result has expired", {}],
};

const AUDIO_CASES: Record<AudioErrorCode, [AudioError, number, string, string, Record<string, string>]> = {
  unsupported_container: [new UnsupportedContainerError(), 415, 'unsupported_media_type', 'the audio container is not supported', {}],
  undecodable_audio: [new UndecodableAudioError('ffmpeg said ECHO-CANARY-1234'), 400, 'invalid_request', 'the audio could not be decoded', {}],
  audio_too_long: [new AudioTooLongError(60, 61), 413, 'upload_too_large', 'the audio is longer than this route accepts', {}],
  audio_too_short: [new AudioTooShortError(1, 0.5), 400, 'invalid_request', 'the audio could not be decoded', {}],
  decode_timeout: [new DecodeTimeoutError(60_000), 503, 'service_unavailable', 'decoding the audio took too long', { 'retry-after': '30' }],
  decode_aborted: [new DecodeAbortedError(), 400, 'invalid_request', 'the audio could not be decoded', {}],
};

t.test('application and audio refusals: every kind has its status, code, message and headers', async (t) => {
  for (const [kind, [error, status, code, message, headers]] of [...Object.entries(APPLICATION_CASES), ...Object.entries(AUDIO_CASES)]) {
    const { apiError, unexpected } = mapError(error);
    t.same({ status: apiError.status, code: apiError.code, message: apiError.message, headers: apiError.headers }, { status, code, message, headers }, kind);
    t.equal(unexpected, false, `${kind}: a refusal, not a server fault`);
  }
  for (const [kind, [error]] of Object.entries(APPLICATION_CASES)) {
    t.equal(error.kind, kind, `${error.name} declares its kind`);
    t.notOk(error instanceof ApiError || 'status' in error || 'statusCode' in error, `${error.name}: no HTTP of its own`);
  }
});

t.test('engine failures: a full queue and a closing engine are retryable 503s, the rest server faults', async (t) => {
  const full = mapError(new EngineError('queue_full', 'the queue is full'));
  t.same([full.apiError.status, full.apiError.code, full.apiError.headers, full.unexpected], [503, 'capacity_unavailable', { 'retry-after': '5' }, false]);
  const closed = mapError(new EngineError('engine_closed', 'closed'));
  t.same(
    [closed.apiError.status, closed.apiError.code, closed.apiError.message, closed.apiError.headers, closed.unexpected],
    [503, 'service_unavailable', 'the service is shutting down', { 'retry-after': '5' }, false],
  );
  for (const code of ['model_load_failed', 'vad_model_load_failed', 'vad_not_configured', 'invalid_audio', 'transcription_failed'] as const) {
    const { apiError, unexpected } = mapError(new EngineError(code, 'ECHO-CANARY-1234'));
    t.same([apiError.status, apiError.code, unexpected], [500, 'internal_error', true], code);
  }
});
