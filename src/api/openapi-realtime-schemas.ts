// The realtime client secret's request and answer as JSON Schema (POST /v1/realtime/client_secrets).
// Bounds come from the code that enforces them (src/contract/client-secret-request.ts). And the
// realtime `start` message, from the contract's table of request fields (route `realtime`), as the
// start's parser reads its names.
import {
  CLIENT_SECRET_ANCHOR,
  CLIENT_SECRET_DEFAULT_SECONDS,
  CLIENT_SECRET_MAX_SECONDS,
  CLIENT_SECRET_MIN_SECONDS,
} from '../contract/client-secret-request.js';
import { documentedFields, requiredFieldsOf } from '../contract/request-fields.js';
import { CLIENT_SECRET_PREFIX } from '../store/realtime-client-secret-record.js';
import { integer, string } from './openapi-schema-builders.js';
import type { Schema } from './openapi-types.js';

export const realtimeClientSecretRequest: Schema = {
  type: 'object',
  description:
    "OpenAI's realtime client-secret request as far as it applies. The body may be left out. OpenAI's `session` is refused (422): " +
    'a session is configured by its `start` message.',
  additionalProperties: false,
  properties: {
    expires_after: {
      type: 'object',
      description: 'How long the secret stays valid for a `start`.',
      additionalProperties: false,
      properties: {
        anchor: string({ enum: [CLIENT_SECRET_ANCHOR], default: CLIENT_SECRET_ANCHOR, description: 'The lifetime counts from creation.' }),
        seconds: integer({ minimum: CLIENT_SECRET_MIN_SECONDS, maximum: CLIENT_SECRET_MAX_SECONDS, default: CLIENT_SECRET_DEFAULT_SECONDS }),
      },
    },
  },
};

export const realtimeClientSecret: Schema = {
  type: 'object',
  description:
    'A single-use stand-in for the API key: send it as `client_secret` in one realtime `start` message (instead of `api_key`) before ' +
    "`expires_at`. The session runs as the key's: its tenant, plan, seats, billing and revocation.",
  required: ['value', 'expires_at'],
  additionalProperties: false,
  properties: {
    value: string({ pattern: `^${CLIENT_SECRET_PREFIX}[A-Za-z0-9_-]{43}$`, description: 'Shown once; the server keeps its SHA-256 only.' }),
    expires_at: integer({ description: 'Unix seconds: from then on the secret is refused.' }),
  },
};

export const realtimeStartMessage: Schema = {
  type: 'object',
  description:
    "A realtime session's first message: a text frame on the realtime listener's `/v1/realtime` (REALTIME.md), not an HTTP request. " +
    'Exactly one of `api_key` and `client_secret`; any other field is refused (close 4400).',
  required: requiredFieldsOf('realtime'),
  additionalProperties: false,
  properties: documentedFields('realtime', 'json'),
};
