// The console's playground over HTTP (src/console/playground-routes.ts), on a real service: a
// two-voice exchange transcribed as one of the tenant's keys (speakers, words with times, language
// runs, the vocabulary audit; metered to the key; one audit line without the transcript), another
// tenant's key id answered as an unknown one, the CSRF token and origin checked, the API's own
// refusals shown with the API's messages, a field the form does not have refused, a run recorded as a
// use of its key (the keys page's Last used), and the page's CSP widened only by what the playground needs.
import { readFile } from 'node:fs/promises';
import { Script } from 'node:vm';

import t from 'tap';

import { utcMinute } from '../../src/console/keys-page.js';
import { realtimeUrlFor } from '../../src/console/playground-realtime-address.js';
import { pngImage, speechWav } from '../helpers/audio-fixtures.js';
import { CONVERSATION_VOICES, exchange } from '../helpers/conversations.js';
import { connectRealtime, startMessage } from '../helpers/realtime-client.js';
import { captureLogs, recordCanary } from '../helpers/test-logs.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { type ConsoleAnswer, ConsoleClient, newMember } from './console-client.js';

const PASSWORD = 'juniper-auscultation-88';
let svc: TestService;
let logs: ReturnType<typeof captureLogs>;
let audio: Buffer;

t.before(async () => {
  logs = captureLogs();
  // An inline boundary of 20 s: the 16 s exchange is answered inline, a 24 s recording becomes a job.
  svc = await startTestService({ SVC_INLINE_BOUNDARY_SECONDS: '20' }, { logger: { level: 'info', stream: logs.stream } });
  const talk = await exchange({ voices: [CONVERSATION_VOICES.A, CONVERSATION_VOICES.B], turns: 4, minSeconds: 3, maxSeconds: 4, seed: 5 });
  audio = await readFile(talk.path);
});
t.teardown(() => svc?.close());

const base = () => svc.service.consoleUrl!;

/** A signed-in member of `tenant` with one key of the tenant's, and the playground page's CSRF token. */
async function member(tenant: string): Promise<{ client: ConsoleClient; csrf: string; keyId: string }> {
  const client = await newMember(svc, tenant, PASSWORD);
  const { id } = await svc.createKey({ tenant });
  const page = await client.get('/playground');
  return { client, csrf: ConsoleClient.csrfOf(page.page), keyId: id };
}

/** The playground's form posted as a browser posts it (multipart, the console's origin, the session cookie). */
async function transcribe(
  client: ConsoleClient,
  fields: Record<string, string>,
  file: { data: Uint8Array; name: string } | null = { data: audio, name: 'exchange.wav' },
  headers: Record<string, string> = {},
): Promise<ConsoleAnswer & { shownAt: string | null }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file) form.append('file', new Blob([new Uint8Array(file.data)]), file.name);
  const res = await fetch(`${base()}/playground`, {
    method: 'POST',
    body: form,
    redirect: 'manual',
    headers: { origin: base(), cookie: `svc_console_session=${client.cookie}`, ...headers },
  });
  // What ran is shown on a page of its own (redirect after POST): followed here as a browser does.
  const shownAt = res.status === 303 && res.headers.get('location')?.startsWith('/playground/results/') ? res.headers.get('location') : null;
  if (shownAt !== null) return { ...(await client.get(shownAt)), shownAt };
  return { status: res.status, headers: res.headers, page: await res.text(), shownAt };
}

const auditLines = (tenant: string) => logs.lines().filter((l) => l.msg === 'console audit' && l.audit === 'playground_transcription' && l.tenantId === tenant);

t.test('a two-voice exchange, diarized: speakers in colours and in text, words with times, language runs, the audit; metered to the key', async (t) => {
  const { client, csrf, keyId } = await member('clinic-play');
  const answer = await transcribe(client, {
    csrf,
    key_id: keyId,
    model: 'svc-medical-1',
    language: 'en',
    diarize: 'true',
    min_speakers: '2',
    max_speakers: '',
    'timestamp_granularities[]': 'word',
    vocabulary: '["metoprolol", "tachycardia"]',
    language_hints: '',
    patterns: '',
  });
  t.equal(answer.status, 200, answer.status === 200 ? 'answered' : answer.page);
  const page = answer.page;
  const chips = [...page.matchAll(/<span class="speaker-chip (speaker-\d)">([A-Z])<\/span>/g)].map((m) => [m[2], m[1]]);
  t.same(
    chips,
    [
      ['A', 'speaker-1'],
      ['B', 'speaker-2'],
    ],
    'two speakers, as asked (min_speakers=2), each with a colour class and its label',
  );
  const labels = [...page.matchAll(/<li class="segment (speaker-\d)">\s*<p class="segment-head"><span class="speaker-label">Speaker ([A-Z])<\/span>/g)];
  t.ok(labels.length >= 1, `${labels.length} segments with their speaker's label in text`);
  t.ok(
    labels.every((m) => m[1] === (m[2] === 'A' ? 'speaker-1' : 'speaker-2')),
    "each segment in its speaker's colour",
  );
  const starts = [...page.matchAll(/<button type="button" class="word" data-start="([\d.]+)">[^<]*<span class="time">([\d.]+)<\/span>/g)];
  t.ok(starts.length >= 1, `${starts.length} words as buttons with their start times`);
  t.ok(
    starts.every((m) => Number(m[2]) === Number(Number(m[1]).toFixed(2))),
    'the time shown is the word start',
  );
  t.match(page, /<h3>Language runs<\/h3>\s*<ol><li>en: 0\.\d\d s to [\d.]+ s \(\d+ segments?\)<\/li><\/ol>/, 'one English run');
  t.match(page, /<dt>Terms<\/dt><dd>2 \(2 sent, 0 from the key's dictionary\); all prompted\.<\/dd>/, 'the vocabulary audit in plain words');
  t.match(page, /<dt>Safety fallback<\/dt><dd>(No|Yes)/);
  t.notMatch(page, /<div class="notice error"/);

  const [line, ...more] = auditLines('clinic-play');
  t.equal(more.length, 0, 'one audit line');
  t.match(line, { audit: 'playground_transcription', keyId, status: 200, billing: 'metered', requestId: /^req_/ });
  t.ok((line.meteredSeconds as number) > 10, `metered to the key as an API request (${line.meteredSeconds} s)`);
  const transcript = JSON.parse(
    /<pre class="answer" tabindex="0">([^<]*)<\/pre>/
      .exec(page)![1]
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&'),
  );
  t.equal(transcript.request_id, line.requestId, "the page's request id is the audited one");
  const text = transcript.text.trim();
  recordCanary('transcript', text);
  t.notOk(text !== '' && logs.text().includes(text), 'no transcript in any log line');
  t.notMatch(logs.text(), /metoprolol|exchange\.wav/, 'nor the terms, nor the file name');
});

t.test('redirect after POST: the answer has a page of its own, read again without transcribing again, by its session alone', async (t) => {
  const { client, csrf, keyId } = await member('clinic-play-again');
  const short = { data: await readFile(await speechWav(3)), name: 'short.wav' };
  const answer = await transcribe(client, { csrf, key_id: keyId, model: 'svc-medical-1', language: 'en', vocabulary: '["metoprolol"]' }, short);
  t.match(answer.shownAt, /^\/playground\/results\/[\w-]{22}$/, "a 303 to the answer's own page");
  t.equal(answer.status, 200);
  t.match(answer.page, /<pre class="answer"/, 'the answer');
  t.match(answer.page, /metoprolol/, 'the form as sent, shown again');
  const again = await client.get(answer.shownAt!);
  t.equal(again.status, 200, 'a reload');
  const answerOf = (page: string) => /<pre class="answer" tabindex="0">([^<]*)<\/pre>/.exec(page)?.[1];
  t.ok(answerOf(again.page), 'the answer again');
  t.equal(answerOf(again.page), answerOf(answer.page), 'the same answer');
  t.equal(auditLines('clinic-play-again').length, 1, 'one transcription, whatever the reloads');
  t.equal((await client.get('/playground/results/unknown')).status, 404, 'an unknown answer');
  const colleague = await newMember(svc, 'clinic-play-again', PASSWORD, { email: 'colleague@clinic.example' });
  const foreign = await colleague.get(answer.shownAt!);
  t.equal(foreign.status, 404, "another session's answer is not shown, even a colleague's in the same tenant");
  t.notMatch(foreign.page, /<pre class="answer"/);
  t.match(foreign.page, /This answer is no longer kept/);
  t.equal((await client.get(answer.shownAt!)).status, 200, 'still shown to the session that asked');
});

t.test("the key's rate limit counts the API's requests and the playground's as one", async (t) => {
  const { client, csrf } = await member('clinic-play-rate');
  // One request a minute: each pair below runs well within the minute that would refill the bucket.
  const listModels = (key: string) => fetch(`${svc.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  const short = { data: await readFile(await speechWav(3)), name: 'short.wav' };

  const first = await svc.createKey({ tenant: 'clinic-play-rate', rateLimitPerMinute: 1 });
  const played = await transcribe(client, { csrf, key_id: first.id, model: 'svc-medical-1' }, short);
  t.equal(played.status, 200, "the playground takes the minute's one request");
  const api = await listModels(first.key);
  t.equal(api.status, 429, 'then the API refuses the key');
  const { error } = (await api.json()) as { error: { code: string; message: string } };
  t.equal(error.code, 'rate_limited');

  const second = await svc.createKey({ tenant: 'clinic-play-rate', rateLimitPerMinute: 1 });
  t.equal((await listModels(second.key)).status, 200, "the API takes the minute's one request");
  const refused = await transcribe(client, { csrf, key_id: second.id, model: 'svc-medical-1' }, short);
  t.equal(refused.status, 429, 'then the playground refuses the key');
  t.match(refused.headers.get('retry-after'), /^\d+$/, "with the API's Retry-After");
  t.ok(refused.page.includes(`The API refused it (429 rate_limited): ${error.message}.`), `the API's message: ${error.message}`);
  t.match(
    auditLines('clinic-play-rate').map((l) => [l.keyId, l.status, l.errorCode]),
    [
      [first.id, 200, undefined],
      [second.id, 429, 'rate_limited'],
    ],
    'the refusal audited with its code',
  );

  const third = await svc.createKey({ tenant: 'clinic-play-rate', rateLimitPerMinute: 1 });
  t.equal((await listModels(third.key)).status, 200);
  const secret = await client.post('/playground/realtime/secret', { csrf, key_id: third.id });
  t.equal(secret.status, 429, "a realtime client secret is a request of the key's too");
  t.same(JSON.parse(secret.page), { error: { code: 'rate_limited', message: error.message } });
});

t.test('a playground run is a use of its key: a transcription, or a client secret minted for the realtime tab; the keys page shows it', async (t) => {
  const { client, csrf, keyId } = await member('clinic-play-used');
  const live = await svc.createKey({ tenant: 'clinic-play-used' });
  const other = await svc.createKey({ tenant: 'clinic-play-unused' });
  const lastUsed = async (id: string) => (await svc.stores.keys.get(id))!.lastUsedAt;
  /** The "Last used" cell of the key's row on the keys page (the column after Created). */
  const lastUsedCell = async (id: string) =>
    new RegExp(`<td><code>${id}</code></td>\\n<td>[^<]*</td>\\n<td>([^<]*)</td>`).exec((await client.get('/keys')).page)?.[1];
  t.equal(await lastUsedCell(keyId), 'never');

  const from = Date.now();
  const played = await transcribe(client, { csrf, key_id: keyId, model: 'svc-medical-1' }, { data: await readFile(await speechWav(3)), name: 'short.wav' });
  t.equal(played.status, 200);
  await svc.service.keyUsesWritten();
  const used = await lastUsed(keyId);
  t.ok(used !== null && Date.parse(used) >= from && Date.parse(used) <= Date.now(), `recorded at the transcription: ${used}`);
  t.equal(await lastUsedCell(keyId), utcMinute(used!), "the keys page's Last used");

  const minted = await client.post('/playground/realtime/secret', { csrf, key_id: live.id });
  t.equal(minted.status, 200);
  await svc.service.keyUsesWritten();
  t.not(await lastUsed(live.id), null, 'a client secret minted for the realtime tab, before any session starts');
  t.equal((await transcribe(client, { csrf, key_id: other.id, model: 'svc-medical-1' })).status, 404);
  t.equal((await client.post('/playground/realtime/secret', { csrf, key_id: other.id })).status, 404);
  await svc.service.keyUsesWritten();
  t.equal(await lastUsed(other.id), null, "another tenant's key, refused: no use recorded");
});

t.test('a recording longer than the inline boundary becomes a job of the key, named on the page', async (t) => {
  const { client, csrf, keyId } = await member('clinic-play-long');
  const answer = await transcribe(client, { csrf, key_id: keyId, model: 'svc-medical-1' }, { data: await readFile(await speechWav(24)), name: 'long.wav' });
  t.ok(answer.shownAt, 'shown after a redirect');
  t.equal(answer.status, 200);
  const jobId = /became job (job_\w+) of key/.exec(answer.page)?.[1];
  t.ok(jobId, 'the page names the job');
  t.match(answer.page, /The playground answers shorter recordings only/);
  t.equal((await svc.stores.jobs.get(jobId!, 'clinic-play-long'))?.keyId, keyId, 'a job of the chosen key');
  const [line] = auditLines('clinic-play-long');
  t.match(line, { keyId, status: 202, billing: 'job', jobId });
});

t.test("another tenant's key id is answered as an unknown key; nothing runs", async (t) => {
  const { client, csrf } = await member('clinic-mine');
  const other = await svc.createKey({ tenant: 'clinic-theirs' });
  const answer = await transcribe(client, { csrf, key_id: other.id, model: 'svc-medical-1' });
  t.equal(answer.status, 404);
  t.match(answer.page, /No such key\./);
  t.equal(auditLines('clinic-mine').length + auditLines('clinic-theirs').length, 0, 'nothing transcribed, nothing audited');
  t.equal((await transcribe(client, { csrf, key_id: 'key_doesnotexist', model: 'svc-medical-1' })).status, 404, 'the same for an id that does not exist');
});

t.test('the session CSRF token and the console origin are required', async (t) => {
  const { client, csrf, keyId } = await member('clinic-play-csrf');
  t.equal((await transcribe(client, { key_id: keyId, model: 'svc-medical-1' })).status, 403, 'no token');
  t.equal((await transcribe(client, { csrf: `${csrf.slice(1)}x`, key_id: keyId, model: 'svc-medical-1' })).status, 403, 'a wrong token');
  t.equal(
    (await transcribe(client, { csrf, key_id: keyId, model: 'svc-medical-1' }, undefined, { origin: 'https://evil.example' })).status,
    403,
    'another origin',
  );
  t.equal(auditLines('clinic-play-csrf').length, 0, 'nothing transcribed');
  const signedOut = new ConsoleClient(base());
  t.equal((await transcribe(signedOut, { csrf, key_id: keyId, model: 'svc-medical-1' })).status, 303, 'signed out: to sign-in');
});

t.test("refusals are the API's: the same status and message as the route gives the key", async (t) => {
  const { client, csrf, keyId } = await member('clinic-play-refusals');
  const key = (await svc.createKey({ tenant: 'clinic-play-refusals' })).key;
  const cases: Array<{ fields: Record<string, string>; file?: { data: Uint8Array; name: string } }> = [
    { fields: { vocabulary: 'metoprolol, tachycardia' } },
    { fields: { min_speakers: '2' } },
    { fields: { language: 'auto', language_hints: '["en", "xx"]' } },
    { fields: {}, file: { data: await readFile(await pngImage()), name: 'picture.png' } },
  ];
  for (const { fields, file } of cases) {
    const sent = { model: 'svc-medical-1', ...fields };
    const api = await fetch(`${svc.url}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: (() => {
        const form = new FormData();
        for (const [name, value] of Object.entries(sent)) form.append(name, value);
        form.append('file', new Blob([new Uint8Array(file?.data ?? audio)]), file?.name ?? 'exchange.wav');
        return form;
      })(),
    });
    const { error } = (await api.json()) as { error: { code: string; message: string } };
    const answer = await transcribe(client, { csrf, key_id: keyId, ...sent }, file);
    t.equal(answer.status, api.status, `${error.code}: the API's status (${api.status})`);
    t.ok(
      answer.page.includes(`The API refused it (${api.status} ${error.code}): ${error.message.replace(/"/g, '&quot;')}.`),
      `the API's message: ${error.message}`,
    );
  }
  const audits = auditLines('clinic-play-refusals');
  t.equal(audits.length, cases.length, 'each refusal audited');
  t.ok(
    audits.every((l) => l.keyId === keyId && typeof l.errorCode === 'string' && l.billing !== 'metered'),
    'with its code, nothing metered',
  );

  const crafted = await transcribe(client, { csrf, key_id: keyId, model: 'svc-medical-1', webhook_url: 'https://example.com/hook' });
  t.equal(crafted.status, 400, 'a field the form does not have is refused, not passed on');
  t.match(crafted.page, /the playground takes only these fields/);
});

t.test("the playground's pages: the console's CSP, widened by blob: media and the realtime listener's origin only", async (t) => {
  const { client } = await member('clinic-play-csp');
  const page = await client.get('/playground');
  t.equal(page.status, 200);
  const csp = page.headers.get('content-security-policy')!;
  const realtime = new URL(svc.service.realtime!.url).origin;
  t.match(csp, /default-src 'none'/);
  t.match(csp, /script-src 'self';/);
  t.ok(csp.includes(`connect-src 'self' ${realtime};`), `connect-src: the console and ${realtime}`);
  t.match(csp, /media-src blob:;/);
  t.notMatch(csp, /unsafe-inline|unsafe-eval|https?:|\*/, 'no inline script and no other origin');
  t.notMatch(page.page, /<script>|\sstyle=|\son[a-z]+=/, 'no inline script, style or handler');
  t.match(page.page, /<script type="module" src="\/assets\/playground\.js"><\/script>/, "the page's own script");
  const keys = await client.get('/keys');
  t.notMatch(keys.headers.get('content-security-policy')!, /media-src|ws:/, 'other pages keep the strict CSP');
  const script = await client.get('/assets/playground.js');
  t.equal(script.status, 200);
  t.match(script.headers.get('content-type'), /^text\/javascript/);
});

t.test("the realtime tab: a client secret of the tenant's key, minted in-process, opens one session as the key's; never the key", async (t) => {
  const { client, csrf, keyId } = await member('clinic-play-live');
  const page = await client.get('/playground/realtime');
  t.equal(page.status, 200);
  t.match(page.page, /<script type="module" src="\/assets\/playground-realtime\.js"><\/script>/, "the tab's own script");
  const realtimeUrl = svc.service.realtime!.url;

  const minted = await client.post('/playground/realtime/secret', { csrf, key_id: keyId });
  t.equal(minted.status, 200);
  const body = JSON.parse(minted.page) as { client_secret: string; expires_at: number; url: string };
  t.match(body.client_secret, /^ek_/);
  t.equal(body.url, `${realtimeUrl}/v1/realtime`, "the realtime listener's address");
  t.ok(body.expires_at * 1000 - Date.now() <= 30_000 && body.expires_at * 1000 > Date.now(), 'valid 30 s at most');
  t.notMatch(minted.page, /svc_/, 'no API key in the answer');

  const { api_key: _none, ...start } = startMessage('');
  const session = await connectRealtime(realtimeUrl);
  session.start({ ...start, client_secret: body.client_secret });
  t.equal((await session.next('ready')).type, 'ready', 'the secret opens a session');
  session.stop();
  t.equal((await session.next('final')).type, 'final');
  t.equal((await session.closed).code, 1000);
  const again = await connectRealtime(realtimeUrl);
  again.start({ ...start, client_secret: body.client_secret });
  t.not((await again.closed).code, 1000, 'used once');

  const other = await svc.createKey({ tenant: 'clinic-play-elsewhere' });
  const foreign = await client.post('/playground/realtime/secret', { csrf, key_id: other.id });
  t.equal(foreign.status, 404, "another tenant's key id: unknown");
  t.match(foreign.page, /No such key/);
  t.equal((await client.post('/playground/realtime/secret', { key_id: keyId })).status, 403, 'no CSRF token: refused');
  t.equal((await client.post('/playground/realtime/secret', { csrf, key_id: keyId }, { origin: 'https://evil.example' })).status, 403, 'another origin');

  const audits = logs.lines().filter((l) => l.msg === 'console audit' && l.tenantId === 'clinic-play-live' && l.audit === 'playground_realtime_secret');
  t.equal(audits.length, 1, 'one audit line, for the one secret minted');
  t.match(audits[0], { keyId, expiresAt: body.expires_at });
  t.notOk(logs.text().includes(body.client_secret), 'the secret in no log line');
});

t.test("the realtime listener's address for the page: as bound, or the console's host name where it is bound to every interface", async (t) => {
  t.equal(realtimeUrlFor('ws://127.0.0.1:8081', 'console.clinic.example'), 'ws://127.0.0.1:8081', 'a bound address is kept');
  t.equal(realtimeUrlFor('ws://0.0.0.0:8081', 'console.clinic.example'), 'ws://console.clinic.example:8081', '0.0.0.0: the host the browser used');
  t.equal(realtimeUrlFor('ws://[::]:8081', '[fd00::5]'), 'ws://[fd00::5]:8081', ':: too');
});

// The scripts are files (assets/console/), linted and formatted as browser code; the browser test
// runs them, where there is a Chromium. Here: each is served as it is in its file, and parses.
t.test("the playground's browser scripts: served from their files, as JavaScript", async (t) => {
  const { client } = await member('clinic-play-assets');
  for (const name of ['playground.js', 'playground-realtime.js', 'playground-microphone.js']) {
    const file = await readFile(new URL(`../../assets/console/${name}`, import.meta.url), 'utf8');
    const served = await client.get(`/assets/${name}`);
    t.equal(served.status, 200, name);
    t.match(served.headers.get('content-type'), /^text\/javascript; charset=utf-8/);
    t.equal(served.page, file, `${name}: the file's text`);
    t.doesNotThrow(() => new Script(file, { filename: name }), `${name} parses`);
  }
});

t.test('the clinical text fields: smart_format and redact run as on the API, the page says what was redacted', async (t) => {
  const { client, csrf, keyId } = await member('clinic-redact');
  const answer = await transcribe(client, { csrf, key_id: keyId, model: 'svc-medical-1', language: 'en', smart_format: 'true', redact: 'identifiers' });
  t.equal(answer.status, 200, answer.status === 200 ? 'answered' : answer.page);
  t.match(answer.page, /<p>Redacted: (nothing found|[a-z_]+ \d+(, [a-z_]+ \d+)*)\.<\/p>/, 'the counts, by class');
  t.match(answer.page, /name="smart_format" value="true" checked/, 'the form keeps what was asked');
  const [line] = auditLines('clinic-redact');
  t.type(line.redactions, 'object', 'the audit line counts them');
  const refused = await transcribe(client, { csrf, key_id: keyId, model: 'svc-medical-1', redact: 'canary_policy' });
  t.equal(refused.status, 422);
  t.notMatch(refused.page, /canary_policy(?!")/, 'the refusal does not echo the policy sent');
});
