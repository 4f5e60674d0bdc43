// Values a careless or hostile client sends where a field, header, id or path segment is expected:
// empty and huge, NUL and control characters, unicode edge cases, wrong types written as text,
// injection and traversal attempts. Every generated value may carry ECHO_CANARY, which no error
// message may ever reflect (the contract: messages never quote request content).
import fc from 'fast-check';

/** Marks request content; an error body that contains it has echoed the request. */
export const ECHO_CANARY = 'ECHO7CANARY';

/**
 * Text as a case describes it: literal, or a repeated unit (megabyte values stay small to print
 * and reproduce, and are only materialised when the request is built).
 */
export type Text = string | { repeat: string; count: number };

export function materialize(text: Text): string {
  return typeof text === 'string' ? text : text.repeat.repeat(text.count);
}

const SPECIAL_STRINGS = [
  '',
  ' ',
  '\t',
  '\u0000',
  `${ECHO_CANARY}\u0000tail`,
  'null',
  'undefined',
  'true',
  '0',
  '-1',
  '1e309',
  'NaN',
  '[]',
  '{}',
  '[null]',
  '{"__proto__":{"polluted":1}}',
  '__proto__',
  'constructor',
  'hasOwnProperty',
  '../../../../etc/passwd',
  '..%2F..%2F..%2Fetc%2Fpasswd',
  '%00',
  '%ZZ',
  `<script>${ECHO_CANARY}</script>`,
  `'; DROP TABLE jobs; -- ${ECHO_CANARY}`,
  `${ECHO_CANARY}\r\nX-Injected: 1`,
  '\uFEFFsvc-medical-1',
  '\uD800',
  '\u202Eevil',
  'é',
  'ｓｖｃ－ｍｅｄｉｃａｌ－１',
  '🎙️🩺',
  `${ECHO_CANARY}${'\u0301'.repeat(64)}`,
  'svc-medical-1\u0000',
  'svc-medical-1 ',
  'SVC-MEDICAL-1',
  'whisper-1',
] as const;

/** A value that is huge: a header or field limit's worth and past it. */
export const hugeText: fc.Arbitrary<Text> = fc.record({
  repeat: fc.constantFrom('A', `${ECHO_CANARY}-`, 'é', '\u0000', ' ', '🩺'),
  count: fc.constantFrom(1_000, 17_000, 70_000, 300_000),
});

/** Any hostile text, mostly short; huge only rarely (each costs bandwidth and parse time). */
export const hostileText: fc.Arbitrary<Text> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }).map((s) => `${ECHO_CANARY}${s}`) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 24 }) },
  { weight: 1, arbitrary: hugeText },
);

/** Path segments where an id belongs: traversal, encodings, overlong, empty. */
export const hostileId: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'job_00000000000000000000',
    '..',
    '..%2F..%2Fetc%2Fpasswd',
    '%2e%2e',
    '%00',
    '%ZZ',
    '%C0%AE%C0%AE',
    '%F0%9F%A9%BA',
    'a'.repeat(101),
    'a'.repeat(5000),
    `${ECHO_CANARY}`,
    '%0d%0aX-Injected:%201',
    ';',
    '*',
    '%20',
    '~',
    'CON',
    '.audio',
    'uploads',
  ),
  fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/),
  fc.string({ unit: 'binary-ascii', maxLength: 30 }).map((s) => encodeURIComponent(s)),
);

/** Query strings, including repeated and malformed parameters. */
export const hostileQuery: fc.Arbitrary<string> = fc.oneof(
  fc.constant(''),
  fc.constantFrom(
    '?wait=',
    '?wait=0',
    '?wait=-1',
    '?wait=abc',
    '?wait=1e3',
    '?wait=999999999',
    '?wait=0&wait=0',
    '?include_result=true',
    '?include_result=TRUE',
    '?include_result=1',
    '?include_result=true&include_result=false',
    '?include_result[]=true',
    '?__proto__[x]=1',
    '?%ZZ=1',
    '?a=%00',
    `?x=${ECHO_CANARY}`,
    '?&&&=&=',
    '?' + 'a=1&'.repeat(2000),
  ),
);

/** Request methods: the route's, other real ones, WebDAV, lower-case and invented tokens. */
export const hostileMethod: fc.Arbitrary<string> = fc.constantFrom(
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'TRACE',
  'PROPFIND',
  'MKCOL',
  'PURGE',
  'SEARCH',
  'get',
  'FOO',
  'G ET',
);

/** Header lines beside the ones a case needs: long, repeated, odd names, smuggling attempts. */
export const extraHeaders: fc.Arbitrary<Array<[string, string]>> = fc.array(
  fc.oneof(
    fc.constantFrom<[string, string]>(
      ['X-Forwarded-For', '10.0.0.1'],
      ['X-Request-Id', `${ECHO_CANARY}`],
      ['Accept', 'text/html'],
      ['Accept-Encoding', 'gzip, br'],
      ['Content-Encoding', 'gzip'],
      ['Idempotency-Key', ''],
      ['Idempotency-Key', 'k'.repeat(256)],
      ['Idempotency-Key', `${ECHO_CANARY}-${'\u00e9'}`],
      ['Expect', '100-continue'],
      ['Connection', 'keep-alive, Upgrade'],
      ['Upgrade', 'websocket'],
      ['Cookie', `session=${ECHO_CANARY}`],
      ['X-Large', 'x'.repeat(8_000)],
      ['Range', 'bytes=0-1'],
      ['Origin', 'https://evil.example'],
    ),
    fc.tuple(
      fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/),
      fc.string({ unit: 'grapheme-ascii', maxLength: 60 }).map((v) => v.replace(/[\r\n]/g, ' ')),
    ),
  ),
  { maxLength: 4 },
);
