// The subset of OpenAPI 3.1 (and its JSON Schema 2020-12 dialect) that the service's document uses,
// typed so a mistyped keyword fails the build rather than a client's code generator.

export type { JsonType, Reference, Schema } from '../contract/json-schema.js';
import type { Reference, Schema } from '../contract/json-schema.js';

export interface Header {
  description?: string;
  required?: boolean;
  schema: Schema | Reference;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  description?: string;
  required?: boolean;
  schema: Schema | Reference;
}

export interface MediaType {
  schema: Schema | Reference;
  encoding?: Record<string, { contentType?: string }>;
}

export interface Response {
  description: string;
  headers?: Record<string, Header | Reference>;
  content?: Record<string, MediaType>;
}

export type SecurityRequirement = Record<string, string[]>;

export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  parameters?: Array<Parameter | Reference>;
  requestBody?: { required?: boolean; description?: string; content: Record<string, MediaType> };
  responses: Record<string, Response | Reference>;
  security: SecurityRequirement[];
  deprecated?: boolean;
}

export type PathItem = Partial<Record<'get' | 'post' | 'put' | 'patch' | 'delete', Operation>> & {
  parameters?: Array<Parameter | Reference>;
};

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description?: string };
  servers?: Array<{ url: string; description?: string }>;
  security: SecurityRequirement[];
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, PathItem>;
  /** Requests this service makes to its clients (OpenAPI 3.1). */
  webhooks?: Record<string, PathItem>;
  components: {
    schemas: Record<string, Schema>;
    responses: Record<string, Response>;
    parameters?: Record<string, Parameter>;
    headers?: Record<string, Header>;
    securitySchemes: Record<string, { type: 'http'; scheme: 'bearer'; description?: string }>;
  };
}

/** An object schema whose properties are a route's path, query or header parameters. */
export interface ParameterSchema extends Schema {
  type: 'object';
  properties: Record<string, Schema>;
}

/**
 * A route's `schema` option, the one source of its documentation. Fastify validates `params`,
 * `querystring`, `headers` and the JSON `body` with it before the handler runs (response bodies are
 * serialised with JSON.stringify: see build-app.ts); the OpenAPI document is generated from it
 * (openapi-document.ts). A multipart form is read as a stream, field by field, by the route's own
 * reader, which enforces the same declarations: it is described in `multipartBody`, which Fastify
 * ignores.
 */
export interface RouteSchema {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security: SecurityRequirement[];
  params?: ParameterSchema;
  querystring?: ParameterSchema;
  headers?: ParameterSchema;
  body?: Schema;
  /** false: the JSON body may be left out (Fastify ignores this; the document says so). Default true. */
  bodyRequired?: false;
  multipartBody?: MediaType;
  response: Record<string, Response>;
}
