// A direct upload streamed from a file on disk: the hostile-audio corpus has files of 100 MB, which
// neither the test nor the benchmark should hold in memory (FormData would).
import { createReadStream, statSync } from 'node:fs';
import { request } from 'node:http';

export interface StreamedAnswer {
  status: number;
  contentType: string;
  body: string;
}

const BOUNDARY = '----svc-hostile-audio-boundary';

export function postFileForTranscription(url: string, key: string, path: string, fields: Record<string, string>): Promise<StreamedAnswer> {
  const head = Buffer.from(
    Object.entries(fields)
      .map(([name, value]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
      .join('') +
      // A neutral name and type: the server must judge the bytes, not the label.
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="upload.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const size = statSync(path).size;
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'content-length': String(head.length + size + tail.length),
      },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body }));
    });
    // A refusal mid-body closes the connection while the rest is still being written.
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    req.write(head);
    const file = createReadStream(path);
    file.on('error', reject);
    file.pipe(req, { end: false });
    file.on('end', () => req.end(tail));
  });
}
