// GET /v1/openapi.json: the contract's machine description, public so tools can fetch it without a
// key. Built once per app: it depends only on configuration.
import type { FastifyInstance } from 'fastify';
import type { AppDependencies } from '../app-dependencies.js';
import { buildOpenApiDocument } from '../openapi.js';
import '../fastify-augment.js';

export const OPENAPI_PATH = '/v1/openapi.json';

export function openApiRoute(app: FastifyInstance, deps: Pick<AppDependencies, 'config'>): void {
  const body = JSON.stringify(buildOpenApiDocument({ serverUrl: deps.config.publicBaseUrl || undefined }));
  app.get(OPENAPI_PATH, { config: { public: true } }, (_request, reply) => {
    reply.type('application/json; charset=utf-8').header('cache-control', 'public, max-age=300').send(body);
  });
}
