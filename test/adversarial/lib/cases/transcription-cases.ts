// POST /v1/audio/transcriptions: a valid request (model, format, audio) with one thing made hostile —
// a field's value, a duplicate or unknown field, the part names, the file (contents, name, type,
// count, position), the number and size of parts, or the multipart syntax around them.
import fc from 'fast-check';

import { authChoice, type CaseSpec, type FieldPart, type FileChoice, type FilePart, framing, type PartSpec } from '../case-spec.js';
import { ECHO_CANARY, extraHeaders, hostileText, hugeText, type Text } from '../hostile-values.js';
import { multipartShape, withParts } from './multipart-shape.js';

export const TRANSCRIPTIONS = 'POST /v1/audio/transcriptions';

/** Replaced by the run's webhook destination (loopback, accepted only because the server allows it). */
export const WEBHOOK_PLACEHOLDER = '{webhook}';

/** File names that must never reach a log (the log audit looks for the prefix). */
export const CANARY_FILENAME_PREFIX = 'patient-record-canary';

const VALID_VALUES: Readonly<Record<string, readonly string[]>> = {
  model: ['svc-medical-1', 'svc-medical-edge-1'],
  response_format: ['json', 'text', 'verbose_json', 'diarized_json'],
  language: ['en', 'en-GB', 'es-MX', 'auto', 'de', 'hi'],
  language_hints: ['["en","es"]', '["fr"]'],
  diarize: ['true', 'false'],
  dictionary: ['true', 'false'],
  vocabulary: ['["metoprolol","troponin"]', '[]'],
  patterns: ['\\d{3}-\\d{4}'],
  webhook_url: [`${WEBHOOK_PLACEHOLDER}`, 'https://127.0.0.1/hook', 'http://hooks.fuzz.test/hook', 'https://user:pw@hooks.fuzz.test/hook#x'],
  profile: ['default', 'standard', 'turbo'],
};
const FIELD_NAMES = Object.keys(VALID_VALUES);

const field = (name: Text, value: Text, contentType?: string): FieldPart => ({ kind: 'field', name, value, contentType });
const filePart = (file: FileChoice, extra: Partial<FilePart> = {}): FilePart => ({
  kind: 'file',
  name: 'file',
  filename: `${CANARY_FILENAME_PREFIX}-visit.wav`,
  contentType: 'audio/wav',
  file,
  ...extra,
});

const BASE: readonly FieldPart[] = [field('model', 'svc-medical-1'), field('response_format', 'json')];

const validOptions = fc
  .subarray(FIELD_NAMES, { maxLength: 4 })
  .chain((names) => fc.tuple(...names.map((name) => fc.constantFrom(...VALID_VALUES[name]).map((value) => field(name, value)))));

const fieldName = fc.constantFrom(...FIELD_NAMES, 'temperature', 'prompt', 'file', 'stream');

type Variant = { mutation: string; parts: PartSpec[] };

const variants: fc.Arbitrary<Variant> = fc.oneof(
  { weight: 2, arbitrary: fc.constant<Variant>({ mutation: 'valid request', parts: [...BASE, filePart('speech')] }) },
  {
    weight: 2,
    arbitrary: validOptions.map((options) => ({
      mutation: `valid options ${options.map((o) => o.name).join(',')}`,
      parts: [field('model', 'svc-medical-1'), ...options, filePart('speech')],
    })),
  },
  {
    weight: 6,
    arbitrary: fc.tuple(fieldName, hostileText).map(([name, value]) => ({
      mutation: `hostile ${name}`,
      parts: [...BASE.filter((f) => f.name !== name), field(name, value), filePart('speech')],
    })),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(fieldName, fc.constantFrom(...VALID_VALUES.model, 'whisper-1', '')).map(([name, value]) => ({
      mutation: `duplicate ${name}`,
      parts: [...BASE, field(name, value), field(name, name === 'model' ? 'whisper-1' : value), filePart('speech')],
    })),
  },
  { weight: 1, arbitrary: fc.constant<Variant>({ mutation: 'model missing', parts: [field('response_format', 'json'), filePart('speech')] }) },
  {
    weight: 1,
    arbitrary: fc.tuple(fieldName, fc.constantFrom('{"a":1}', '[1,2', 'null', `"${ECHO_CANARY}"`)).map(([name, value]) => ({
      mutation: `JSON-typed ${name} part`,
      parts: [...BASE.filter((f) => f.name !== name), field(name, value, 'application/json'), filePart('speech')],
    })),
  },
  {
    weight: 1,
    arbitrary: hostileText.map((name) => ({ mutation: 'hostile part name', parts: [...BASE, field(name, 'x'), filePart('speech')] })),
  },
  {
    weight: 4,
    arbitrary: fc.oneof(
      fc
        .constantFrom<FileChoice>('short-speech', 'empty', 'random', 'png', 'wav-header-only', 'mp3-garbage')
        .map((file) => ({ mutation: `file ${file}`, parts: [...BASE, filePart(file)] })),
      hostileText.map((filename) => ({ mutation: 'hostile filename', parts: [...BASE, filePart('speech', { filename })] })),
      fc.constantFrom('', 'text/html', 'audio/wav; charset=utf-8', `audio/${ECHO_CANARY}`, 'multipart/form-data; boundary=x').map((contentType) => ({
        mutation: 'hostile file content type',
        parts: [...BASE, filePart('speech', { contentType })],
      })),
      fc.constant<Variant>({ mutation: 'no filename parameter', parts: [...BASE, filePart('speech', { filename: null })] }),
      fc.constant<Variant>({ mutation: 'file before the fields', parts: [filePart('speech'), ...BASE] }),
      fc.constant<Variant>({ mutation: 'two files', parts: [...BASE, filePart('speech'), filePart('random')] }),
      fc.constant<Variant>({ mutation: 'no file', parts: [...BASE] }),
      fc.constant<Variant>({ mutation: 'file under another name', parts: [...BASE, filePart('speech', { name: 'audio' })] }),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(31, 33, 39, 41, 200).map((count) => ({
      mutation: `${count} extra fields`,
      parts: [...BASE, ...Array.from({ length: count }, (_, i) => field(`extra_${i}`, 'x')), filePart('speech')],
    })),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fieldName, hugeText).map(([name, value]) => ({
      mutation: `huge ${name}`,
      parts: [...BASE.filter((f) => f.name !== name), field(name, value), filePart('speech')],
    })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(1_048_577, 2_000_000).map((count) => ({
      mutation: `vocabulary of ${count} bytes`,
      parts: [...BASE, field('vocabulary', { repeat: ' ', count: count - 2 }), filePart('speech')],
    })),
  },
);

export const transcriptionCase: fc.Arbitrary<CaseSpec> = fc
  .record({ variant: variants, shape: multipartShape, auth: authChoice, headers: extraHeaders, framing })
  .map(({ variant, shape, auth, headers, framing }) => ({
    route: TRANSCRIPTIONS,
    mutation: `${variant.mutation}; ${shape.label}`,
    auth,
    job: 'none',
    method: 'POST',
    target: '/v1/audio/transcriptions',
    headers,
    body: withParts(shape, variant.parts),
    framing,
  }));
