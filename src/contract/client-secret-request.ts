// The body of POST /v1/realtime/client_secrets, OpenAI's realtime client-secret request as far as it
// applies here: `expires_after` ({"anchor":"created_at","seconds":N}, N from 10 to 60, default 60).
// OpenAI's `session` has no place: a session here is configured by its own `start` message
// (REALTIME.md), so one sent is refused rather than ignored. The body may be left out (defaults).
// Statuses as the job route's (job-creation-request.ts): a body that is not an object, or a field
// this route does not know, 400; a value it cannot serve as asked, 422. Messages name our fields only.
import { unknownFieldMessage } from '../domain/field-names.js';
import { InvalidRequestField, UnprocessableRequest } from '../pipeline/pipeline-errors.js';

/** A client secret lives long enough for a page to open its socket with it, and no longer. */
export const CLIENT_SECRET_MIN_SECONDS = 10;
export const CLIENT_SECRET_MAX_SECONDS = 60;
export const CLIENT_SECRET_DEFAULT_SECONDS = 60;
/** OpenAI's one anchor: the lifetime counts from the secret's creation. */
export const CLIENT_SECRET_ANCHOR = 'created_at';

const FIELDS = ['expires_after'] as const;
const EXPIRES_AFTER_FIELDS = ['anchor', 'seconds'];

export interface ClientSecretRequest {
  /** Seconds from creation to expiry. */
  expiresAfterSeconds: number;
}

/** The request as sent (`undefined`: no body); throws the pipeline's refusals naming the field. */
export function parseClientSecretRequest(body: unknown): ClientSecretRequest {
  if (body === undefined) return { expiresAfterSeconds: CLIENT_SECRET_DEFAULT_SECONDS };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new InvalidRequestField('the request body must be a JSON object');
  const fields = body as Record<string, unknown>;
  if (Object.hasOwn(fields, 'session')) {
    throw new UnprocessableRequest('session is not taken here: a realtime session is configured by its start message (REALTIME.md)');
  }
  const unknown = Object.keys(fields).find((name) => !(FIELDS as readonly string[]).includes(name));
  if (unknown !== undefined) throw new InvalidRequestField(unknownFieldMessage(unknown, FIELDS));
  return { expiresAfterSeconds: fields.expires_after === undefined ? CLIENT_SECRET_DEFAULT_SECONDS : expiresAfter(fields.expires_after) };
}

function expiresAfter(value: unknown): number {
  const range = `an integer from ${CLIENT_SECRET_MIN_SECONDS} to ${CLIENT_SECRET_MAX_SECONDS}`;
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.keys(value).some((name) => !EXPIRES_AFTER_FIELDS.includes(name))) {
    throw new UnprocessableRequest(`expires_after must be {"anchor":"${CLIENT_SECRET_ANCHOR}","seconds":N}, N ${range}`);
  }
  const { anchor, seconds } = value as Record<string, unknown>;
  if (anchor !== undefined && anchor !== CLIENT_SECRET_ANCHOR) throw new UnprocessableRequest(`expires_after.anchor must be "${CLIENT_SECRET_ANCHOR}"`);
  if (seconds === undefined) return CLIENT_SECRET_DEFAULT_SECONDS;
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < CLIENT_SECRET_MIN_SECONDS || seconds > CLIENT_SECRET_MAX_SECONDS) {
    throw new UnprocessableRequest(`expires_after.seconds must be ${range}`);
  }
  return seconds;
}
