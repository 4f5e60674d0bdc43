// Type augmentation of Fastify for what the frame adds: the authenticated key on the request, and
// the route flag that opts a route out of authentication, and the recorded OpenAPI operations.
import type { ApiKeyRecord } from '../store/key-store.js';
import type { OpenApiCollector } from './openapi-document.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The routes' schemas, recorded as routes register: the source of GET /v1/openapi.json. */
    openApi: OpenApiCollector;
  }
  interface FastifyRequest {
    /** The authenticated key; null on public routes and before authentication has run. */
    apiKey: ApiKeyRecord | null;
  }
  interface FastifyContextConfig {
    /** No bearer key needed and no per-key rate limit (e.g. GET /v1/openapi.json). */
    public?: boolean;
  }
}

export {};
