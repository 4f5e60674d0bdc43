// Type augmentation of Fastify for what the frame adds: the authenticated key on the request, the
// request's usage (a transcription's audio length and billing outcome, for its log line), the route
// flag that opts a route out of authentication, and the recorded OpenAPI operations.
import type { RequestUsage } from '../application/request-usage.js';
import type { ApiKeyRecord } from '../domain/api-keys.js';
import type { OpenApiCollector } from './openapi-document.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The routes' schemas, recorded as routes register: the source of GET /v1/openapi.json. */
    openApi: OpenApiCollector;
  }
  interface FastifyRequest {
    /** The authenticated key; null on public routes and before authentication has run. */
    apiKey: ApiKeyRecord | null;
    /** A transcription's audio length and billing outcome (request-log-controller.ts writes them); null on other routes. */
    usage: RequestUsage | null;
  }
  interface FastifyContextConfig {
    /** No bearer key needed and no per-key rate limit (e.g. GET /v1/openapi.json). */
    public?: boolean;
  }
}

export {};
