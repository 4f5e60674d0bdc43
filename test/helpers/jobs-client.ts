// A client of the /v1/jobs flow as the contract describes it: create, POST the form, complete, poll.
export interface CreatedJob {
  id: string;
  status: string;
  upload: { method: string; url: string; fields: Record<string, string>; expires_in_seconds: number };
  complete_url: string;
  poll_url: string;
  min_audio_seconds: number;
  max_audio_seconds: number;
  [field: string]: unknown;
}

export const auth = (key: string) => ({ authorization: `Bearer ${key}` });

export function createJobRequest(url: string, key: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/v1/jobs`, {
    method: 'POST',
    headers: { ...auth(key), 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

export async function createJob(url: string, key: string, body: Record<string, unknown>): Promise<CreatedJob> {
  const res = await createJobRequest(url, key, body);
  if (res.status !== 201) throw new Error(`create job: ${res.status} ${await res.text()}`);
  return (await res.json()) as CreatedJob;
}

export function jobBody(data: Uint8Array, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { filename: 'visit.wav', content_type: 'audio/wav', content_length_bytes: data.length, ...extra };
}

/** POSTs the form: every field as given (or as overridden), then the file. */
export function uploadFile(
  job: Pick<CreatedJob, 'upload'>,
  data: Uint8Array,
  fields: Record<string, string> = job.upload.fields,
  type = 'audio/wav',
): Promise<Response> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([data as Uint8Array<ArrayBuffer>], { type }), 'visit.wav');
  return fetch(job.upload.url, { method: 'POST', body: form });
}

export function completeJob(job: Pick<CreatedJob, 'complete_url'>, key: string): Promise<Response> {
  return fetch(job.complete_url, { method: 'POST', headers: auth(key) });
}

export async function poll(pollUrl: string, key: string, query = ''): Promise<{ status: number; body: any }> {
  const res = await fetch(`${pollUrl}${query}`, { headers: auth(key) });
  return { status: res.status, body: await res.json() };
}

/** Long-polls until the job is succeeded or failed (or `limitMs` passes). */
export async function waitForEnd(pollUrl: string, key: string, limitMs = 120_000): Promise<any> {
  const until = Date.now() + limitMs;
  for (;;) {
    const { body } = await poll(pollUrl, key, '?wait=20');
    if (body.status === 'succeeded' || body.status === 'failed' || Date.now() > until) return body;
  }
}
