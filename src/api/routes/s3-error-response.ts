// Errors of the presigned upload target in S3's shape (an XML <Error> document), because what posts
// to it is written against S3's browser POST: clients and their libraries parse these, not our JSON
// envelope. Messages are fixed texts; nothing from the request is reflected.
import type { FastifyReply, FastifyRequest } from 'fastify';

import { REQUEST_ID_HEADER } from '../request-id.js';
import type { UploadFormError } from './upload-form-refusals.js';

const escapeXml = (text: string) => text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

export function sendS3Error(request: FastifyRequest, reply: FastifyReply, error: UploadFormError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${escapeXml(error.code)}</Code><Message>${escapeXml(error.message)}</Message>` +
    `<RequestId>${escapeXml(request.id)}</RequestId></Error>`;
  return reply.code(error.status).header(REQUEST_ID_HEADER, request.id).type('application/xml').send(body);
}
