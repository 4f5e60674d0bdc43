// Requests broken below the routes: request lines and header blocks that are not valid HTTP/1.1,
// smuggling-shaped framing, header overflow, odd methods and request-target forms, HTTP/2 and TLS
// bytes on the plain port. Sent verbatim against every catalogued path. Also the public OpenAPI
// route, and any route the OpenAPI document lists that the catalogue has no generator for yet.
import fc from 'fast-check';

import { authChoice, type CaseSpec } from '../case-spec.js';
import { ECHO_CANARY, extraHeaders, hostileMethod, hostileQuery } from '../hostile-values.js';

export const PROTOCOL = 'HTTP/1.1 framing (any path)';
export const OPENAPI = 'GET /v1/openapi.json';

const PATHS = ['/v1/audio/transcriptions', '/v1/jobs', '/v1/jobs/job_x', '/v1/jobs/job_x/complete', '/v1/uploads/job_x', '/v1/openapi.json'] as const;

/**
 * `{path}` and `{key}` are filled in; `\r\n` is written out. Templates in INCOMPLETE never finish a
 * request: the client half-closes after them, and a closed connection is a fair answer.
 */
const TEMPLATES: ReadonlyArray<readonly [label: string, text: string]> = [
  ['HTTP/1.0 without Host', 'GET {path} HTTP/1.0\r\n\r\n'],
  ['HTTP/1.1 without Host', 'GET {path} HTTP/1.1\r\nConnection: close\r\n\r\n'],
  ['two Host headers', 'GET {path} HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n'],
  ['Expect other than 100-continue', 'POST {path} HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'],
  [
    'Expect 100-continue',
    'POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\nExpect: 100-continue\r\n' +
      'Content-Length: 2\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{}',
  ],
  ['CONNECT', 'CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n'],
  ['absolute-form target', 'GET http://evil.example{path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
  ['asterisk-form target', 'OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
  ['garbage request line', `${ECHO_CANARY} ${ECHO_CANARY}\r\n\r\n`],
  ['lower-case version', 'GET {path} http/1.1\r\nHost: x\r\n\r\n'],
  ['HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
  ['HTTP/3.0 version', 'GET {path} HTTP/3.0\r\nHost: x\r\n\r\n'],
  ['TLS ClientHello bytes', '\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003'],
  ['header without colon', 'GET {path} HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n'],
  ['obs-fold header', 'GET {path} HTTP/1.1\r\nHost: x\r\nX-Folded: a\r\n  b\r\nConnection: close\r\n\r\n'],
  ['space before colon', 'GET {path} HTTP/1.1\r\nHost : x\r\n\r\n'],
  ['NUL in header value', 'GET {path} HTTP/1.1\r\nHost: x\r\nX-Nul: a\u0000b\r\n\r\n'],
  ['bare CR in header value', 'GET {path} HTTP/1.1\r\nHost: x\r\nX-Cr: a\rb\r\n\r\n'],
  ['bare LF line ends', 'GET {path} HTTP/1.1\nHost: x\nConnection: close\n\n'],
  ['Content-Length and chunked', 'POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'],
  ['two different Content-Lengths', 'POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}'],
  ['negative Content-Length', 'POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n'],
  ['Content-Length with plus sign', 'POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: +2\r\n\r\n{}'],
  [
    'huge Content-Length',
    'POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {key}\r\nContent-Type: application/json\r\nContent-Length: 99999999999999999999\r\n\r\n{}',
  ],
  ['chunked with bad size', 'POST {path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nab\r\n0\r\n\r\n'],
  ['chunked with overlong size', 'POST {path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\nab\r\n'],
  ['chunked, then identity', 'POST {path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n'],
  ['gzip transfer coding', 'POST {path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n'],
  ['pipelined requests', 'GET {path} HTTP/1.1\r\nHost: x\r\n\r\nGET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
  [
    'request smuggling attempt',
    'POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 44\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /v1/jobs/x HTTP/1.1\r\nHost: x\r\n\r\n',
  ],
  ['header block over 16 KiB', `GET {path} HTTP/1.1\r\nHost: x\r\n${`X-Fill: ${'f'.repeat(1_000)}\r\n`.repeat(20)}\r\n`],
  ['3,000 headers', `GET {path} HTTP/1.1\r\nHost: x\r\n${'X-Many: 1\r\n'.repeat(3_000)}Connection: close\r\n\r\n`],
  ['target over 16 KiB', `GET {path}?${'q'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
  ['non-ASCII target', 'GET {path}/\u00e9\u00ff HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
  [
    'Upgrade to websocket',
    'GET {path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
      'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
  ],
  ['Upgrade to h2c', 'GET {path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n'],
  ['only an empty line', '\r\n\r\n'],
];

const INCOMPLETE = new Set(['only an empty line', 'chunked with overlong size']);

export const protocolCase: fc.Arbitrary<CaseSpec> = fc
  .record({ template: fc.constantFrom(...TEMPLATES), path: fc.constantFrom(...PATHS) })
  .map(({ template: [label, text], path }) => ({
    route: PROTOCOL,
    mutation: label,
    auth: 'none',
    job: 'none',
    method: 'GET',
    target: path,
    headers: [],
    body: { kind: 'none' },
    framing: INCOMPLETE.has(label) ? 'overstated' : 'length',
    verbatim: text.replaceAll('{path}', path),
  }));

export const openApiCase: fc.Arbitrary<CaseSpec> = fc
  .record({
    method: fc.oneof({ weight: 4, arbitrary: fc.constant('GET') }, { weight: 1, arbitrary: hostileMethod }),
    query: hostileQuery,
    suffix: fc.constantFrom('', '', '', '/', '.bak', '%00', '/../jobs'),
    auth: authChoice,
    headers: extraHeaders,
  })
  .map(({ method, query, suffix, auth, headers }) => ({
    route: OPENAPI,
    mutation: `${method}${suffix}${query ? ' with query' : ''}`,
    auth,
    job: 'none',
    method,
    target: `/v1/openapi.json${suffix}${query}`,
    headers,
    body: { kind: 'none' },
    framing: 'length',
  }));

/**
 * For a route the OpenAPI document lists and the catalogue does not know: every method, hostile
 * path parameters and query, a JSON body. Shallow, but no route goes unfuzzed.
 */
export function uncataloguedRouteCase(path: string): fc.Arbitrary<CaseSpec> {
  return fc
    .record({
      method: hostileMethod,
      param: fc.constantFrom('x', '..', '%00', 'a'.repeat(200), ECHO_CANARY),
      query: hostileQuery,
      auth: authChoice,
      headers: extraHeaders,
      body: fc.constantFrom(null, '{}', `{"x":"${ECHO_CANARY}"}`, '{'),
    })
    .map(({ method, param, query, auth, headers, body }) => ({
      route: `${path} (no generator yet)`,
      mutation: method,
      auth,
      job: 'none',
      method,
      target: `${path.replace(/\{[^}]+\}/g, param)}${query}`,
      headers,
      body: body === null ? { kind: 'none' } : { kind: 'json', text: body, contentType: 'application/json' },
      framing: 'length',
    }));
}
