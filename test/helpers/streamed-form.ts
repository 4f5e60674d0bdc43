// A large multipart/form-data body made as it is sent (a 200 MB upload is never held in memory):
// the text fields, then a `file` part holding a WAV of exactly `fileBytes` bytes (its header, then
// silence). The stream is pulled, so it goes no faster than the server reads.
import { wavHeader } from '../../src/audio/muted-wav.js';

/** The bytes of silence handed out per pull; never written to, so one buffer serves every pull. */
const CHUNK = new Uint8Array(256 * 1024);

export interface StreamedForm {
  contentType: string;
  body: ReadableStream<Uint8Array>;
  /** Bytes of the file part handed to the stream so far. */
  fileBytesSent(): number;
}

export function streamedWavForm(fields: Record<string, string>, fileBytes: number, filename = 'visit.wav'): StreamedForm {
  const boundary = `----svc-streamed-${Math.random().toString(16).slice(2)}`;
  const encoder = new TextEncoder();
  const head = encoder.encode(
    Object.entries(fields)
      .map(([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
      .join('') + `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: audio/wav\r\n\r\n`,
  );
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
  let sent = 0;
  let stage: 'head' | 'wav' | 'file' | 'tail' | 'done' = 'head';
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (stage === 'head') {
        controller.enqueue(head);
        stage = 'wav';
      } else if (stage === 'wav') {
        const header = wavHeader(fileBytes - 44);
        controller.enqueue(header);
        sent = header.length;
        stage = 'file';
      } else if (stage === 'file') {
        const n = Math.min(CHUNK.length, fileBytes - sent);
        controller.enqueue(CHUNK.subarray(0, n));
        sent += n;
        if (sent >= fileBytes) stage = 'tail';
      } else if (stage === 'tail') {
        controller.enqueue(tail);
        stage = 'done';
      } else {
        controller.close();
      }
    },
  });
  return { contentType: `multipart/form-data; boundary=${boundary}`, body, fileBytesSent: () => sent };
}

/** POSTs the form; the body is streamed (chunked), so the request is sent while it is made. */
export function postStreamedForm(url: string, form: StreamedForm, headers: Record<string, string>, signal: AbortSignal): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { ...headers, 'content-type': form.contentType }, body: form.body, duplex: 'half', signal } as RequestInit);
}
