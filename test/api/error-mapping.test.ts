// mapError: which contract error each kind of failure becomes; messages are fixed texts.
import t from 'tap';
import { ApiError } from '../../src/api/api-error.js';
import { mapError } from '../../src/api/error-mapping.js';
import {
  EntitlementMissing,
  InvalidRequestField,
  PipelineError,
  UnprocessableRequest,
  UnsupportedDetectedLanguage,
  type PipelineErrorKind,
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
  for (const message of ['Multipart: Boundary not found', 'Unexpected end of multipart data', 'Part terminated early due to unexpected end of multipart data']) {
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
  const validation = (issues: unknown[], context = 'body') => Object.assign(new Error('x'), { validation: issues, validationContext: context, statusCode: 400 });
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
    mapError(validation([{ keyword: 'additionalProperties', schemaPath: '#/additionalProperties', params: { additionalProperty: 'ECHO-CANARY-1234' } }])).apiError.message,
    'the request is not valid',
    'a request-chosen name is never used',
  );
  t.equal(mapError(validation([{ keyword: 'type', schemaPath: '#/patternProperties/.*/type', instancePath: '/ECHO' }])).apiError.message, 'the request is not valid');
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
