// What one fuzz case is, as plain data: printable, reproducible from (seed, index), and turned into
// bytes only by build-request.ts once the run's keys and jobs exist.
import fc from 'fast-check';

import type { Text } from './hostile-values.js';

/**
 * Which credential the case presents. `valid` is the fuzzing key (deepest reach); the others
 * exercise authentication itself and the per-key rules (billing, entitlements, ownership).
 */
export type AuthChoice =
  | 'valid'
  | 'other-tenant'
  | 'none'
  | 'unknown-key'
  | 'revoked'
  | 'paused'
  | 'no-detection'
  | 'malformed'
  | 'huge'
  | 'duplicate-valid-first'
  | 'duplicate-valid-second';

/** Credentials that authenticate: their cases come from the main address (see fuzz-client.ts). */
export const AUTHENTICATING: ReadonlySet<AuthChoice> = new Set(['valid', 'other-tenant', 'paused', 'no-detection']);

/** Mostly the valid key: authenticated requests reach past the frame into the routes. */
export const authChoice: fc.Arbitrary<AuthChoice> = fc.oneof(
  { weight: 14, arbitrary: fc.constant<AuthChoice>('valid') },
  {
    weight: 6,
    arbitrary: fc.constantFrom<AuthChoice>(
      'other-tenant',
      'none',
      'unknown-key',
      'revoked',
      'paused',
      'no-detection',
      'malformed',
      'huge',
      'duplicate-valid-first',
      'duplicate-valid-second',
    ),
  },
);

/** Uploaded file contents (resolved to bytes from fuzz-fixtures.ts). */
export type FileChoice =
  'speech' | 'short-speech' | 'empty' | 'random' | 'png' | 'wav-header-only' | 'mp3-garbage' | 'job-exact' | 'job-plus-one' | 'job-minus-one';

export interface FieldPart {
  kind: 'field';
  name: Text;
  value: Text;
  contentType?: string;
}

export interface FilePart {
  kind: 'file';
  name: Text;
  filename: Text | null;
  contentType?: string;
  file: FileChoice;
}

/** The presigned form of the case's job, as issued or with one change. */
export interface FormFieldsPart {
  kind: 'form-fields';
  mutation:
    | { kind: 'as-issued' }
    | { kind: 'drop'; field: number }
    | { kind: 'change'; field: number; value: Text }
    | { kind: 'duplicate'; field: number }
    | { kind: 'extra'; name: Text; value: Text }
    | { kind: 'flip-signature' };
}

export type PartSpec = FieldPart | FilePart | FormFieldsPart;

export interface MultipartSpec {
  kind: 'multipart';
  parts: PartSpec[];
  boundary: string;
  /** The Content-Type header; `{b}` stands for `boundary`. */
  contentType: string;
  lineEnd: '\r\n' | '\n';
  ending: 'proper' | 'unclosed' | 'cut';
  preamble?: string;
  epilogue?: string;
}

export type BodySpec =
  { kind: 'none' } | { kind: 'json'; text: Text; contentType: string | null } | { kind: 'bytes'; file: FileChoice; contentType: string | null } | MultipartSpec;

export interface CaseSpec {
  /** For reports: the route as catalogued, and what was made hostile. */
  route: string;
  mutation: string;
  auth: AuthChoice;
  /** `fresh`: a new job (awaiting upload, owned by the valid key) is created first; `{job}` in the path is its id. */
  job: 'none' | 'fresh';
  method: string;
  /** Path and query; `{job}` is replaced by the fresh job's id. */
  target: string;
  headers: Array<[string, string]>;
  body: BodySpec;
  /** For `verbatim` cases, `overstated` means: the request is incomplete, the client half-closes. */
  framing: 'length' | 'chunked' | 'overstated' | 'none';
  /** Protocol cases: the whole request as latin1 text (`{key}` is replaced by the valid key). */
  verbatim?: string;
}

/** Body framings, mostly exact lengths; the rest test the parser's handling of the others. */
export const framing: fc.Arbitrary<CaseSpec['framing']> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<CaseSpec['framing']>('length') },
  { weight: 2, arbitrary: fc.constant<CaseSpec['framing']>('chunked') },
  { weight: 1, arbitrary: fc.constantFrom<CaseSpec['framing']>('overstated', 'none') },
);
