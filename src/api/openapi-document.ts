// The OpenAPI 3.1 document, generated from the routes themselves: every route registers with a
// `schema` (RouteSchema: what Fastify validates its parameters and JSON body with), the frame records
// each one from its onRoute hook, and the document is assembled from those records. Shared pieces
// are named once: a component schema or error response used by a route becomes a `$ref`.
import type { RouteOptions } from 'fastify';

import { API_VERSION } from '../contract/response-body.js';
import { schemas } from './openapi-components.js';
import { ERROR_RESPONSES } from './openapi-responses.js';
import type {
  MediaType,
  OpenApiDocument,
  Operation,
  Parameter,
  ParameterSchema,
  PathItem,
  Reference,
  Response,
  RouteSchema,
  Schema,
  SecurityRequirement,
} from './openapi-types.js';
import { WEBHOOK_OPERATIONS } from './openapi-webhooks.js';

export const BEARER: SecurityRequirement[] = [{ bearerAuth: [] }];

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
const DOCUMENTED_METHODS: ReadonlySet<string> = new Set<Method>(['get', 'post', 'put', 'patch', 'delete']);

const SCHEMA_NAMES = new Map<unknown, string>(Object.entries(schemas).map(([name, schema]) => [schema, name]));
const RESPONSE_NAMES = new Map<unknown, string>(Object.entries(ERROR_RESPONSES).map(([name, response]) => [response, name]));

interface RecordedOperation {
  path: string;
  method: Method;
  schema: RouteSchema;
}

export class OpenApiCollector {
  private readonly operations: RecordedOperation[] = [];
  private readonly undocumented: string[] = [];

  /** onRoute hook body. HEAD (derived from GET) and OPTIONS are not operations of their own. */
  record(route: Pick<RouteOptions, 'method' | 'url' | 'schema'>): void {
    const schema = route.schema as Partial<RouteSchema> | undefined;
    for (const raw of Array.isArray(route.method) ? route.method : [route.method]) {
      const method = raw.toLowerCase();
      if (!DOCUMENTED_METHODS.has(method)) continue;
      if (schema?.operationId) this.operations.push({ path: openApiPath(route.url), method: method as Method, schema: schema as RouteSchema });
      else this.undocumented.push(`${raw.toUpperCase()} ${route.url}`);
    }
  }

  /** Routes registered without an operation schema (health probes and metrics are not part of the API). */
  undocumentedRoutes(): readonly string[] {
    return this.undocumented;
  }

  document(options: { serverUrl?: string } = {}): OpenApiDocument {
    const paths: Record<string, PathItem> = {};
    const tags: string[] = [];
    for (const { path, method, schema } of this.operations) {
      (paths[path] ??= {})[method] = operation(schema);
      for (const tag of schema.tags) if (!tags.includes(tag)) tags.push(tag);
    }
    return {
      openapi: '3.1.0',
      info: {
        title: 'svc-stt medical speech-to-text',
        version: API_VERSION,
        description: 'Every request carries `Authorization: Bearer <API_KEY>`. Every error is `{"error":{"code","message"}}`.',
      },
      ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
      security: BEARER,
      tags: tags.map((name) => ({ name })),
      paths,
      webhooks: Object.fromEntries(
        Object.entries(WEBHOOK_OPERATIONS).map(([name, op]) => [name, { post: { ...op, requestBody: op.requestBody && requestBody(op.requestBody.content) } }]),
      ),
      components: {
        schemas,
        responses: ERROR_RESPONSES,
        securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'The API key as the bearer token.' } },
      },
    };
  }
}

/** `/v1/jobs/:job_id` -> `/v1/jobs/{job_id}`. */
export function openApiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function operation(schema: RouteSchema): Operation {
  const parameters = [...parametersOf(schema.params, 'path'), ...parametersOf(schema.querystring, 'query'), ...parametersOf(schema.headers, 'header')];
  const content: Record<string, MediaType> = {};
  if (schema.body) content['application/json'] = { schema: schema.body };
  if (schema.multipartBody) content['multipart/form-data'] = schema.multipartBody;
  return {
    operationId: schema.operationId,
    summary: schema.summary,
    ...(schema.description ? { description: schema.description } : {}),
    tags: schema.tags,
    security: schema.security,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(Object.keys(content).length > 0 ? { requestBody: requestBody(content, schema.bodyRequired ?? true) } : {}),
    responses: Object.fromEntries(Object.entries(schema.response).map(([status, response]) => [status, responseOrRef(response)])),
  };
}

function parametersOf(schema: ParameterSchema | undefined, where: Parameter['in']): Parameter[] {
  if (!schema) return [];
  return Object.entries(schema.properties).map(([name, property]) => {
    const { description, ...rest } = property;
    const required = where === 'path' || (schema.required ?? []).includes(name);
    return { name, in: where, ...(description ? { description } : {}), ...(required ? { required } : {}), schema: rest };
  });
}

function requestBody(content: Record<string, MediaType>, required = true): NonNullable<Operation['requestBody']> {
  return { required, content: mediaTypes(content) };
}

function responseOrRef(response: Response): Response | Reference {
  const name = RESPONSE_NAMES.get(response);
  if (name) return { $ref: `#/components/responses/${name}` };
  return response.content ? { ...response, content: mediaTypes(response.content) } : response;
}

function mediaTypes(content: Record<string, MediaType>): Record<string, MediaType> {
  return Object.fromEntries(Object.entries(content).map(([type, media]) => [type, { ...media, schema: schemaOrRef(media.schema) }]));
}

/** A component schema used whole (as a validated body is) is referred to by name. */
function schemaOrRef(schema: Schema | Reference): Schema | Reference {
  const name = SCHEMA_NAMES.get(schema);
  return name ? { $ref: `#/components/schemas/${name}` } : schema;
}
