// The route schema of POST /v1/uploads/{job_id}, the presigned upload target. Its answers are S3's
// (an XML `<Error>` document), because its clients are S3 browser-POST clients.
import { answerHeaders } from '../openapi-responses.js';
import type { Response, RouteSchema } from '../openapi-types.js';
import { JOB_ID_PARAMS } from './job-schemas.js';

const s3Error = (description: string): Response => ({
  description: `S3-style XML error: ${description}`,
  headers: answerHeaders(),
  content: { 'application/xml': { schema: { type: 'string' } } },
});

export const UPLOAD_JOB_AUDIO_SCHEMA: RouteSchema = {
  operationId: 'uploadJobAudio',
  summary: "The presigned upload target (a job's `upload.url`)",
  description:
    "Behaves like S3's browser POST: multipart/form-data with every `upload.fields` entry unchanged, " +
    'then the `file` part of exactly `content_length_bytes`. No API key: the signed form authorizes it. ' +
    'Errors are S3-style XML documents (`<Error><Code>`), e.g. 403 AccessDenied `Invalid according to Policy: Policy expired.`, ' +
    '403 SignatureDoesNotMatch, 400 EntityTooSmall/EntityTooLarge, 503 ServiceUnavailable when storage fails.',
  tags: ['jobs'],
  security: [],
  params: JOB_ID_PARAMS,
  multipartBody: {
    schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } }, additionalProperties: { type: 'string' } },
  },
  response: {
    '204': { description: 'Stored durably; now POST `complete_url`.', headers: answerHeaders() },
    '400': s3Error(
      'malformed form (including a multipart boundary outside RFC 2046), ' +
        'missing or repeated field, a field over 16 KiB (MaxPostPreDataLengthExceeded), wrong length.',
    ),
    '403': s3Error('bad signature, changed or extra field, expired or used form, or a form whose issuing API key was revoked (AccessDenied).'),
    '409': s3Error('OperationAborted: another upload to this job is in progress.'),
    '503': s3Error('ServiceUnavailable: storage failed; nothing was stored.'),
  },
};
