// GET /v1/openapi.json: the contract's machine description, public so tools can fetch it without a
// key. Generated from the routes' schemas on the first request (every route is registered by then)
// and kept: it depends only on the routes and the configuration.
import '../fastify-augment.js';

import type { FastifyInstance } from 'fastify';

import type { AppDependencies } from '../app-dependencies.js';
import type { OpenApiCollector } from '../openapi-document.js';
import { answerHeaders, errorResponses } from '../openapi-responses.js';
import type { RouteSchema } from '../openapi-types.js';

export const OPENAPI_PATH = '/v1/openapi.json';

const GET_OPENAPI_SCHEMA: RouteSchema = {
  operationId: 'getOpenApiDocument',
  summary: 'This document',
  tags: ['meta'],
  security: [],
  response: {
    '200': { description: 'The OpenAPI 3.1 document.', headers: answerHeaders(), content: { 'application/json': { schema: { type: 'object' } } } },
    ...errorResponses([], { public: true }),
  },
};

export function openApiRoute(app: FastifyInstance, deps: Pick<AppDependencies, 'config'>, collector: OpenApiCollector): void {
  let body: string | null = null;
  app.get(OPENAPI_PATH, { config: { public: true }, schema: GET_OPENAPI_SCHEMA }, (_request, reply) => {
    body ??= JSON.stringify(collector.document({ serverUrl: deps.config.publicBaseUrl || undefined }));
    reply.type('application/json; charset=utf-8').header('cache-control', 'public, max-age=300').send(body);
  });
}
