// JSON Schema as the contract declares its request fields (request-fields.ts) and the OpenAPI
// document publishes them: the subset of JSON Schema 2020-12 the service uses, typed so a mistyped
// keyword fails the build rather than a client's code generator, and the small builders it is written with.
import { LANGUAGE_FAMILIES, LANGUAGE_REGION_SYNTAX } from '../domain/language-families.js';

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
  not?: Schema | Reference;
  enum?: readonly unknown[];
  const?: unknown;
  default?: unknown;
  examples?: unknown[];
  format?: string;
  pattern?: string;
  minimum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
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

/** `en` -> `[eE][nN]`: tags are read in any case (languages.ts), and JSON Schema patterns have no flags. */
export const anyCase = (text: string) => [...text].map((c) => `[${c.toLowerCase()}${c.toUpperCase()}]`).join('');
export const LANGUAGE_TAG_PATTERN = `^(auto|(${LANGUAGE_FAMILIES.map(anyCase).join('|')})(-(${LANGUAGE_REGION_SYNTAX}))?)$`;
export const string = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
export const integer = (extra: Schema = {}): Schema => ({ type: 'integer', ...extra });
export const number = (extra: Schema = {}): Schema => ({ type: 'number', ...extra });
export const boolean = (extra: Schema = {}): Schema => ({ type: 'boolean', ...extra });
export const stringArray = (extra: Schema = {}): Schema => ({ type: 'array', items: string(), ...extra });
