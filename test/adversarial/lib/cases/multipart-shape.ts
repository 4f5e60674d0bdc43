// The envelope of a multipart body, mostly right and sometimes wrong in one way: boundaries that are
// bogus, overlong (RFC 2046 allows 70 characters), mismatched or missing; bare LF line ends; a body
// without its closing delimiter or cut short; garbage around it; a Content-Type that is not multipart.
import fc from 'fast-check';

import type { MultipartSpec, PartSpec } from '../case-spec.js';
import { ECHO_CANARY } from '../hostile-values.js';

export const GOOD_BOUNDARY = '----svc-fuzz-7MA4YWxkTrZu0gW';

type Shape = Omit<MultipartSpec, 'kind' | 'parts'> & { label: string };

const proper = (label: string, extra: Partial<Shape> = {}): Shape => ({
  label,
  boundary: GOOD_BOUNDARY,
  contentType: 'multipart/form-data; boundary={b}',
  lineEnd: '\r\n',
  ending: 'proper',
  ...extra,
});

export const multipartShape: fc.Arbitrary<Shape> = fc.oneof(
  { weight: 20, arbitrary: fc.constant(proper('well-formed')) },
  {
    weight: 6,
    arbitrary: fc.oneof(
      fc.constantFrom(70, 71, 100, 256, 257, 300, 1000).map((n) => proper(`boundary of ${n} characters`, { boundary: 'b'.repeat(n) })),
      fc.constantFrom(
        proper('quoted boundary', { contentType: 'multipart/form-data; boundary="{b}"' }),
        proper('boundary with spaces', { boundary: 'a b c', contentType: 'multipart/form-data; boundary="{b}"' }),
        proper('empty boundary', { boundary: '', contentType: 'multipart/form-data; boundary=' }),
        proper('no boundary parameter', { contentType: 'multipart/form-data' }),
        proper('declared boundary differs from the body', { contentType: 'multipart/form-data; boundary=other-boundary' }),
        proper('two boundary parameters', { contentType: 'multipart/form-data; boundary=first; boundary={b}' }),
        proper('non-ASCII boundary', { boundary: 'gr\u00fc\u00dfe', contentType: 'multipart/form-data; boundary="{b}"' }),
        proper('boundary with canary', { boundary: `${ECHO_CANARY}-x` }),
        proper('upper-case media type', { contentType: 'MULTIPART/FORM-DATA; BOUNDARY={b}' }),
        proper('charset parameter', { contentType: 'multipart/form-data; charset=utf-16; boundary={b}' }),
        proper('multipart/mixed', { contentType: 'multipart/mixed; boundary={b}' }),
        proper('bare LF line ends', { lineEnd: '\n' }),
        proper('no closing delimiter', { ending: 'unclosed' }),
        proper('cut in the middle of the last part', { ending: 'cut' }),
        proper('preamble and epilogue', { preamble: `preamble ${ECHO_CANARY}`, epilogue: `epilogue ${'\u0000'.repeat(16)}` }),
        proper('not multipart: JSON', { contentType: 'application/json' }),
        proper('not multipart: urlencoded', { contentType: 'application/x-www-form-urlencoded' }),
        proper('not multipart: text', { contentType: 'text/plain' }),
        proper('not multipart: octet-stream', { contentType: 'application/octet-stream' }),
        proper('garbage content type', { contentType: `;;==${ECHO_CANARY}` }),
      ),
    ),
  },
);

export function withParts(shape: Shape, parts: PartSpec[]): MultipartSpec {
  const { label: _label, ...rest } = shape;
  return { kind: 'multipart', parts, ...rest };
}
