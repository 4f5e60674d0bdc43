// The subset of OpenAPI 3.1 (and its JSON Schema 2020-12 dialect) that the service's document uses,
// typed so a mistyped keyword fails the build rather than a client's code generator.

export interface Reference {
  $ref: string;
  description?: string;
}

export type JsonType = 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null';

export interface Schema {
  type?: JsonType | JsonType[];
  description?: string;
  properties?: Record<string, Schema | Reference>;
  required?: string[];
  additionalProperties?: boolean | Schema | Reference;
  items?: Schema | Reference;
  allOf?: Array<Schema | Reference>;
  oneOf?: Array<Schema | Reference>;
  anyOf?: Array<Schema | Reference>;
  enum?: readonly unknown[];
  const?: unknown;
  default?: unknown;
  examples?: unknown[];
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  contentMediaType?: string;
  contentSchema?: Schema | Reference;
  deprecated?: boolean;
}

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
    parameters: Record<string, Parameter>;
    headers: Record<string, Header>;
    securitySchemes: Record<string, { type: 'http'; scheme: 'bearer'; description?: string }>;
  };
}
