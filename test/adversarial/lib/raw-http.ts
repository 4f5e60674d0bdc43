// An HTTP/1.1 client on a bare socket, for requests no well-behaved client library would send:
// duplicate or malformed headers, odd methods, lying Content-Length, chunked bodies, truncation and
// half-closed sockets. It reads the first final response (skipping 1xx) and reports what happened.
import { connect, type Socket } from 'node:net';

export type Header = readonly [name: string, value: string];

export interface RawRequest {
  method: string;
  /** The request target exactly as sent (path and query, or anything else). */
  target: string;
  /** In order, duplicates allowed; nothing is added except what `framing` implies. */
  headers: Header[];
  body: Buffer;
  /**
   * How the body is delimited: `length` sends an exact Content-Length; `chunked` a chunked body;
   * `overstated` claims more bytes than are sent and then half-closes the socket (a client that
   * gave up); `none` sends no length header at all; `verbatim` sends `verbatim` as given (the
   * request line and headers are the case's own bytes).
   */
  framing: 'length' | 'chunked' | 'overstated' | 'none' | 'verbatim';
  /** For `verbatim`: the exact bytes of the whole request. */
  verbatim?: Buffer;
  /**
   * Half-close the socket once everything is written (implied by `overstated`). The server still
   * answers a complete request after a half-close (src/api/node-http-server.ts); an incomplete one
   * may be dropped.
   */
  halfClose?: boolean;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string[]>;
  body: Buffer;
}

export type RawOutcome =
  | { kind: 'response'; response: RawResponse; elapsedMs: number }
  /** The server closed (or reset) the connection without a complete response. */
  | { kind: 'closed'; partial: string; elapsedMs: number }
  /** Nothing complete arrived within the timeout: the client gave up. */
  | { kind: 'timeout'; partial: string; elapsedMs: number };

export interface SendOptions {
  timeoutMs: number;
  /** Local address to connect from (any 127.x.y.z on Linux): spreads per-address limits. */
  localAddress?: string;
}

/** The bytes of a request as `framing` says to send them. */
export function serializeRequest(request: RawRequest): Buffer {
  if (request.framing === 'verbatim') return request.verbatim ?? Buffer.alloc(0);
  const headers = [...request.headers];
  let body = request.body;
  if (request.framing === 'length') headers.push(['Content-Length', String(body.length)]);
  if (request.framing === 'overstated') headers.push(['Content-Length', String(body.length + 1 + (body.length >> 1))]);
  if (request.framing === 'chunked') {
    headers.push(['Transfer-Encoding', 'chunked']);
    body = chunked(body);
  }
  const head = `${request.method} ${request.target} HTTP/1.1\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

/** A chunked encoding of `body` in uneven pieces (parsers must not assume one chunk). */
function chunked(body: Buffer): Buffer {
  const pieces: Buffer[] = [];
  let offset = 0;
  let size = 1;
  while (offset < body.length) {
    const piece = body.subarray(offset, offset + size);
    pieces.push(Buffer.from(`${piece.length.toString(16)}\r\n`, 'latin1'), piece, Buffer.from('\r\n', 'latin1'));
    offset += piece.length;
    size = Math.min(size * 7 + 3, 256 * 1024);
  }
  pieces.push(Buffer.from('0\r\n\r\n', 'latin1'));
  return Buffer.concat(pieces);
}

export function sendRaw(url: string, request: RawRequest, options: SendOptions): Promise<RawOutcome> {
  const { hostname, port } = new URL(url);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const bytes = serializeRequest(request);
  const headOnly = requestLine(request).method.toUpperCase() === 'HEAD';
  return new Promise((resolve) => {
    let settled = false;
    let received = Buffer.alloc(0);
    const socket: Socket = connect({ host: hostname, port: Number(port), localAddress: options.localAddress });
    const finish = (outcome: RawOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ kind: 'timeout', partial: preview(received), elapsedMs: elapsed() }), options.timeoutMs);
    socket.on('connect', () => {
      // The server may answer and close before the whole body is written (a refused upload).
      socket.write(bytes, () => {
        if (request.framing === 'overstated' || request.halfClose) socket.end();
      });
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const response = parseResponse(received, headOnly, false);
      if (response) finish({ kind: 'response', response, elapsedMs: elapsed() });
    });
    const onEnd = () => {
      const response = parseResponse(received, headOnly, true);
      finish(response ? { kind: 'response', response, elapsedMs: elapsed() } : { kind: 'closed', partial: preview(received), elapsedMs: elapsed() });
    };
    socket.on('end', onEnd);
    socket.on('close', onEnd);
    // EPIPE/ECONNRESET while writing: what was received so far still decides the outcome.
    socket.on('error', () => {});
  });
}

function preview(bytes: Buffer): string {
  return bytes.subarray(0, 200).toString('latin1');
}

/**
 * The first final response in `bytes`, or null while it is incomplete. `closed`: the connection has
 * ended, so a body without a declared length runs to here.
 */
export function parseResponse(bytes: Buffer, headOnly: boolean, closed: boolean): RawResponse | null {
  let offset = 0;
  for (;;) {
    const headEnd = bytes.indexOf('\r\n\r\n', offset, 'latin1');
    if (headEnd < 0) return null;
    const lines = bytes.subarray(offset, headEnd).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0])?.[1]);
    if (!Number.isInteger(status)) return null;
    const headers: Record<string, string[]> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      (headers[name] ??= []).push(line.slice(colon + 1).trim());
    }
    const bodyStart = headEnd + 4;
    if (status >= 100 && status < 200) {
      offset = bodyStart;
      continue;
    }
    if (headOnly || status === 204 || status === 304) return { status, headers, body: Buffer.alloc(0) };
    const length = headers['content-length']?.[0];
    if (length !== undefined) {
      const end = bodyStart + Number(length);
      return bytes.length >= end ? { status, headers, body: bytes.subarray(bodyStart, end) } : null;
    }
    if (headers['transfer-encoding']?.some((v) => /chunked/i.test(v))) {
      const body = dechunk(bytes.subarray(bodyStart));
      return body ? { status, headers, body } : null;
    }
    return closed ? { status, headers, body: bytes.subarray(bodyStart) } : null;
  }
}

function dechunk(bytes: Buffer): Buffer | null {
  const pieces: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', offset, 'latin1');
    if (lineEnd < 0) return null;
    const size = parseInt(bytes.subarray(offset, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size)) return null;
    if (size === 0) return Buffer.concat(pieces);
    const start = lineEnd + 2;
    if (bytes.length < start + size + 2) return null;
    pieces.push(bytes.subarray(start, start + size));
    offset = start + size + 2;
  }
}

/** The method and target the request line actually carries (verbatim requests included). */
export function requestLine(request: RawRequest): { method: string; target: string } {
  if (request.framing !== 'verbatim') return { method: request.method, target: request.target };
  const [method = '', target = ''] = (request.verbatim ?? Buffer.alloc(0))
    .subarray(0, 512)
    .toString('latin1')
    .split(/[ \r\n]/, 2);
  return { method, target };
}

/** One header's first value (names are lower-case in RawResponse). */
export function headerOf(response: RawResponse, name: string): string | undefined {
  return response.headers[name.toLowerCase()]?.[0];
}
