// POST /v1/realtime/client_secrets: the key mints a single-use secret a page presents in its realtime
// `start` instead of the key (src/application/mint-realtime-client-secret.ts).
import type { FastifyInstance } from 'fastify';

import { type MintClientSecretDeps, mintRealtimeClientSecret } from '../../application/mint-realtime-client-secret.js';
import { parseClientSecretRequest } from '../../contract/client-secret-request.js';
import { CREATE_CLIENT_SECRET_SCHEMA } from './realtime-client-secret-schemas.js';

export function realtimeClientSecretRoutes(deps: MintClientSecretDeps) {
  return async function register(app: FastifyInstance): Promise<void> {
    // What the official openai client's clientSecrets.create() sends without arguments: a JSON content
    // type and no body. The body is optional here, so an empty one is no body (this plugin's parser
    // only; every other JSON body goes to Fastify's own parser, with its poisoning checks).
    const json = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) =>
      body === '' ? done(null, undefined) : json(request, body as string, done),
    );
    // The body is checked against its schema after the contract's own checks (attachValidation); a
    // request without a body takes the defaults (Fastify would judge the missing body as `null`).
    app.post('/v1/realtime/client_secrets', { schema: CREATE_CLIENT_SECRET_SCHEMA, attachValidation: true }, async (request) => {
      const secretRequest = parseClientSecretRequest(request.body);
      if (request.body !== undefined && request.validationError) throw request.validationError;
      const minted = await mintRealtimeClientSecret({ key: request.apiKey!, request: secretRequest, log: request.log }, deps);
      return { value: minted.value, expires_at: minted.expiresAt };
    });
  };
}
