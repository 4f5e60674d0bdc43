// OpenAI's own published schemas for the audio and model routes (test/fixtures/openai/, MIT, its licence
// beside it) as an ajv validator: `openAiErrors(name, value)` lists where a real response breaks OpenAI's
// `components.schemas[name]`. The one documented difference is applied to a copy of the schema, never
// to the responses: segment ids are strings here (the contract's type wins; docs/DESIGN.md "OpenAI compatibility").
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export const OPENAI_SPEC = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'openai', 'openai-audio-openapi.json');

type Json = Record<string, any>;

/** Where this service differs from OpenAI on purpose, as edits of OpenAI's schemas. */
export const DOCUMENTED_DIFFERENCES: Array<{ schema: string; path: string[]; to: Json; why: string }> = [
  { schema: 'TranscriptionSegment', path: ['properties', 'id'], to: { type: 'string' }, why: 'segment ids are strings (seg_N) on every route' },
];

function loadSpec(): Json {
  const spec = JSON.parse(readFileSync(OPENAI_SPEC, 'utf8')) as Json;
  for (const difference of DOCUMENTED_DIFFERENCES) {
    let node = spec.components.schemas[difference.schema];
    for (const key of difference.path.slice(0, -1)) node = node[key];
    node[difference.path.at(-1)!] = difference.to;
  }
  return spec;
}

let ajv: Ajv2020 | null = null;

function validator(): Ajv2020 {
  if (ajv) return ajv;
  // OpenAI's document carries its own keywords (x-oaiMeta, x-stainless-const) and formats (double,
  // float, unixtime, binary) that are descriptive only: not strict, unknown formats not checked.
  ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    logger: false,
    validateFormats: true,
    formats: { double: true, float: true, unixtime: true, binary: true },
  });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ $id: 'openai', components: loadSpec().components }, 'openai');
  return ajv;
}

/** The ways `value` breaks OpenAI's schema `name` (empty when it conforms). */
export function openAiErrors(name: string, value: unknown): string[] {
  const validate = validator().getSchema(`openai#/components/schemas/${name}`);
  if (!validate) throw new Error(`OpenAI's document has no schema ${name}`);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`);
}

/** The properties OpenAI's schema `name` requires. */
export function openAiRequired(name: string): string[] {
  return [...((loadSpec().components.schemas[name] as Json).required ?? [])];
}
