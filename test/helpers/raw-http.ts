// HTTP/1.1 written by hand on a socket, for requests that clients refuse to send: repeated headers
// (fetch and Node's client merge them), odd multipart boundaries. One request per connection
// (`Connection: close`); the answer is read until the server closes. Bodies are returned as sent
// (a chunked answer is not decoded): the tests read error envelopes, which carry a Content-Length.
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `head` (request line and header lines, without the blank line; Host and Connection are
 * added) and `body` (Content-Length added when given) to `url`'s host, and parses the answer.
 */
export function rawRequest(url: string, head: string[], body?: Buffer | string): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(body);
  const lines = [...head, `Host: ${hostname}:${port}`, 'Connection: close'];
  if (body !== undefined) lines.push(`Content-Length: ${payload.length}`);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    });
    socket.write(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload]));
  });
}

function parseResponse(raw: Buffer): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete HTTP answer (${raw.length} bytes)`);
  const [statusLine, ...headerLines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  let body = raw.subarray(end + 4);
  if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  return { status, headers, body: body.toString('utf8') };
}

/** A multipart/form-data body with the given boundary: text fields, then an optional file part. */
export function multipartBody(boundary: string, fields: Array<[string, string]>, file?: { name: string; data: Uint8Array; type?: string }): Buffer {
  const parts: Buffer[] = fields.map(([name, value]) =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`, 'utf8'),
  );
  if (file) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type ?? 'audio/wav'}\r\n\r\n`,
        'utf8',
      ),
      Buffer.from(file.data),
      Buffer.from('\r\n', 'utf8'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`, 'utf8'));
  return Buffer.concat(parts);
}
