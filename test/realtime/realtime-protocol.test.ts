// The realtime protocol on the real service (engine, Silero VAD, SQLite keys), the same suite on both
// transports (uWS.js and ws) with `ws` as the client: the contract's flow and revision rules, the
// start message's refusals and close codes, the plan seat limits by close code, and abusive clients
// closed without affecting another session.
import { readFile } from 'node:fs/promises';

import t from 'tap';
import WebSocket from 'ws';

import { speechWav } from '../helpers/audio-fixtures.js';
import { connectRealtime, type RealtimeClient, type RealtimeEvent, startMessage, wavPcm } from '../helpers/realtime-client.js';
import { UWS_SKIP } from '../helpers/realtime-transports.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

let speech: Uint8Array; // 8 s: two sentences with a pause between

t.before(async () => {
  speech = wavPcm(await readFile(await speechWav(8)));
});

/** Every rule of the event stream that holds whatever the words are. */
function checkStream(t: any, events: RealtimeEvent[]) {
  t.equal(events[0].type, 'ready');
  t.ok(
    events.every((e, i) => i === 0 || e.sequence > events[i - 1].sequence),
    'sequence strictly increasing',
  );
  const finals = new Map<string, RealtimeEvent>();
  const lastRevision = new Map<string, string>();
  for (const e of events) {
    const turn = e.turn_id as string | undefined;
    if (e.type === 'partial' || e.type === 'turn_final') {
      t.notOk(finals.has(turn!), `${e.type} after ${turn}'s turn_final`);
      t.equal(e.replaces_revision_id, lastRevision.get(turn!), `${e.revision_id} names the revision it replaces`);
      lastRevision.set(turn!, e.revision_id as string);
      t.type(e.text, 'string');
      t.ok((e.end as number) >= (e.start as number));
      if (e.type === 'turn_final') finals.set(turn!, e);
    } else if (e.type === 'turn_end_candidate' || e.type === 'turn_continuation') {
      t.notOk(finals.has(turn!), `${e.type} after ${turn}'s turn_final`);
    }
  }
  const final = events[events.length - 1];
  t.equal(final.type, 'final', 'final is last');
  const turnFinals = [...finals.values()];
  t.same(
    final.turns,
    turnFinals.map((e) => ({ turn_id: e.turn_id, text: e.text, start: e.start, end: e.end })),
    'the final record is the turn_finals, unchanged',
  );
  t.equal(
    final.text,
    turnFinals
      .map((e) => e.text as string)
      .filter((x) => x !== '')
      .join(' '),
    'final text = the turn_finals joined',
  );
  return { turnFinals, final };
}

for (const transport of ['uws', 'ws'] as const) {
  t.test(`transport ${transport}`, { skip: transport === 'uws' && UWS_SKIP }, async (t) => {
    const svc: TestService = await startTestService({ SVC_REALTIME_TRANSPORT: transport });
    t.teardown(() => svc.close());
    const realtime = svc.service.realtime!;
    t.equal(realtime.transport, transport, 'the transport asked for serves');
    const url = realtime.url;

    t.test('the whole flow on both paths: ready, partials, turns, final, close 1000', async (t) => {
      for (const path of ['/v1/realtime', '/v1/stream']) {
        const c = await connectRealtime(url, path);
        c.start(startMessage(svc.key, { session_id: `flow-${transport}-${path.length}` }));
        const ready = await c.next('ready');
        t.match(ready, { event_schema: 'svc-agent-v1', language: 'en', model: 'svc-medical-1', transport, speakers: { status: 'off' } });
        // On the first path the stream pauses inside the first sentence until the partial for what
        // was said so far arrives: the turn cannot end without more audio, so the partial must come
        // however slowly this machine decodes. The second path streams four times faster than real time.
        const pace = path === '/v1/realtime' ? 1 : 4;
        let rest = speech;
        if (pace === 1) {
          const inside = 1.5 * 32_000;
          await c.stream(speech.subarray(0, inside), { pace });
          const partial = await c.next('partial');
          t.match(partial, { turn_id: 't1', revision_id: 't1.1' }, 'the first partial of the first turn, while it is spoken');
          rest = speech.subarray(inside);
        }
        await c.stream(rest, { pace });
        await c.stream(new Uint8Array(32_000), { pace });
        c.stop();
        const close = await c.closed;
        t.same(close, { code: 1000, reason: 'FINAL' }, path);
        const { turnFinals, final } = checkStream(t, c.events);
        t.ok(turnFinals.length >= 1, `${turnFinals.length} turns`);
        t.equal(final.audio_seconds, Math.round(((speech.length + 32_000) / 32_000) * 1000) / 1000);
        t.ok((turnFinals[turnFinals.length - 1].end as number) <= (final.audio_seconds as number));
      }
    });

    t.test('diarization asked for: provisional labels in their own revisions, the text unchanged', async (t) => {
      const c = await connectRealtime(url);
      c.start(startMessage(svc.key, { diarization: { enabled: true } }));
      const ready = await c.next('ready');
      t.same(ready.speakers, { status: 'provisional', event: 'speaker_labels' });
      await c.stream(speech, { pace: 4 });
      await c.stream(new Uint8Array(32_000), { pace: 4 });
      c.stop();
      t.same(await c.closed, { code: 1000, reason: 'FINAL' });
      const { turnFinals } = checkStream(t, c.events);
      const labels = c.events.filter((e) => e.type === 'speaker_labels');
      t.ok(labels.length >= 1, 'labels came');
      const labelled = new Map(labels.flatMap((e) => (e.turns as Array<{ turn_id: string; speaker: string }>).map((x) => [x.turn_id, x.speaker] as const)));
      t.same([...labelled.keys()].sort(), turnFinals.map((e) => e.turn_id).sort(), 'every turn is labelled, before final');
      t.same(new Set(labelled.values()), new Set(['A']), 'one voice, one label');
    });

    t.test("a bad start is refused before ready, in the envelope's terms, never echoing it", async (t) => {
      const base = startMessage(svc.key);
      const cases: Array<[string, unknown, number, string, string]> = [
        ['not JSON', 'canary{', 4400, 'INVALID_START', 'invalid_request'],
        ['not start', { ...base, type: 'hello' }, 4400, 'INVALID_START', 'invalid_request'],
        ['unknown field', { ...base, colour: 'canary' }, 4400, 'INVALID_START', 'invalid_request'],
        ['no key', { ...base, api_key: undefined }, 4400, 'INVALID_START', 'invalid_request'],
        ['batch mode', { ...base, streaming_mode: 'canary' }, 4400, 'INVALID_START', 'invalid_request'],
        ['8 kHz', { ...base, audio: { encoding: 'pcm16', sample_rate: 8000, channels: 1 } }, 4400, 'INVALID_START', 'invalid_request'],
        ['stereo', { ...base, audio: { encoding: 'pcm16', sample_rate: 16000, channels: 2 } }, 4400, 'INVALID_START', 'invalid_request'],
        ['mu-law', { ...base, audio: { encoding: 'canary', sample_rate: 16000, channels: 1 } }, 4400, 'INVALID_START', 'invalid_request'],
        ['language auto', { ...base, language: 'auto' }, 4400, 'INVALID_START', 'invalid_request'],
        ['language ja', { ...base, language: 'ja' }, 4400, 'INVALID_START', 'invalid_request'],
        ['no language', { ...base, language: undefined }, 4400, 'INVALID_START', 'invalid_request'],
        ['diarization true', { ...base, diarization: true }, 4400, 'INVALID_START', 'invalid_request'],
        ['schema', { ...base, event_schema: 'canary' }, 4400, 'INVALID_START', 'invalid_request'],
        ['no session id', { ...base, session_id: undefined }, 4400, 'INVALID_START', 'invalid_request'],
        ['bad session id', { ...base, session_id: 'canary id with spaces' }, 4400, 'INVALID_START', 'invalid_request'],
        ['model', { ...base, model: 'canary-1' }, 4400, 'INVALID_START', 'invalid_request'],
        ['huge', { ...base, session_id: 'x', pad: 'canary'.repeat(1000) }, 4400, 'INVALID_START', 'invalid_request'],
        ['unknown key', { ...base, api_key: 'svc_canary_canary' }, 4401, 'UNAUTHORIZED', 'unauthorized'],
      ];
      for (const [name, message, code, reason, errorCode] of cases) {
        const c = await connectRealtime(url);
        c.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
        const close = await c.closed;
        t.same(close, { code, reason }, `${name}: ${code} ${reason}`);
        t.equal(c.events.length, 1, `${name}: one error event, no ready`);
        t.match(c.events[0], { type: 'error', code: errorCode, reason });
        t.notOk(JSON.stringify(c.events[0]).includes('canary'), `${name}: nothing echoed`);
      }
      const paused = await svc.createKey();
      await svc.updateKey(paused.id, { billingState: 'paused' });
      const c = await connectRealtime(url);
      c.start(startMessage(paused.key));
      t.same(await c.closed, { code: 4402, reason: 'BILLING_BLOCKED' });
      const early = await connectRealtime(url);
      early.socket.send(new Uint8Array(3200));
      t.same(await early.closed, { code: 1008, reason: 'AUDIO_BEFORE_READY' }, 'audio before start');
      // Audio sent right behind the start reaches the server before or after it admitted the start:
      // ws parses both frames of one read in one task (the admission still pending: refused), uWS
      // hands each frame over in a callback of its own, after which Node runs the admission's
      // promises, and an admission that needs no I/O is then done (ready was sent before the audio
      // was read: taken). Either way the server judges by its own order, and nothing else happens.
      for (let attempt = 0; attempt < 5; attempt++) {
        const eager = await connectRealtime(url);
        eager.start(startMessage(svc.key));
        eager.socket.send(new Uint8Array(3200));
        const readyFirst = await Promise.race([
          eager.next('ready').then(
            () => true,
            () => false,
          ),
          eager.closed.then(() => false),
        ]);
        if (readyFirst) {
          eager.stop();
          t.same(await eager.closed, { code: 1000, reason: 'FINAL' }, `ready before the audio was read: taken (try ${attempt + 1})`);
        } else {
          t.same(await eager.closed, { code: 1008, reason: 'AUDIO_BEFORE_READY' }, `audio read before ready (try ${attempt + 1})`);
          t.notOk(
            eager.events.some((e) => e.type === 'ready'),
            'no ready',
          );
        }
      }
    });

    t.test('seats per project by plan, across both paths: 1013 before any audio', async (t) => {
      const builder = await svc.createKey({ plan: 'builder' });
      const open = async (key: string, path: string, diarization = false) => {
        const c = await connectRealtime(url, path);
        c.start(startMessage(key, diarization ? { diarization: { enabled: true } } : {}));
        return c;
      };
      const a = await open(builder.key, '/v1/realtime', true);
      await a.next('ready');
      const speakersFull = await open(builder.key, '/v1/stream', true);
      t.same(await speakersFull.closed, { code: 1013, reason: 'SPEAKER_CAPACITY_FULL' }, 'the one speaker room is taken; text seats remain');
      const b = await open(builder.key, '/v1/stream');
      await b.next('ready');
      const third = await open(builder.key, '/v1/realtime');
      t.same(await third.closed, { code: 1013, reason: 'TOO_MANY_STREAMS' }, 'two sessions on a builder project');
      t.match(third.events[0], { type: 'error', code: 'rate_limited', reason: 'TOO_MANY_STREAMS' });
      // Another key of the same project shares its seats.
      const sibling = await svc.createKey({ plan: 'builder', tenant: builder.tenant });
      const fourth = await open(sibling.key, '/v1/realtime');
      t.same(await fourth.closed, { code: 1013, reason: 'TOO_MANY_STREAMS' }, 'seats are per project');
      a.stop();
      await a.closed;
      const again = await open(builder.key, '/v1/realtime', true);
      await again.next('ready');
      t.pass('a closed session gives its seats back');
      for (const c of [b, again]) {
        c.stop();
        await c.closed;
      }
      const payg = await svc.createKey({ plan: 'payg' });
      const sessions: RealtimeClient[] = [];
      for (let i = 0; i < 10; i++) {
        const c = await open(payg.key, i % 2 ? '/v1/stream' : '/v1/realtime', i < 2);
        await c.next('ready');
        sessions.push(c);
      }
      const eleventh = await open(payg.key, '/v1/realtime');
      t.same(await eleventh.closed, { code: 1013, reason: 'TOO_MANY_STREAMS' }, 'ten sessions on pay as you go');
      for (const c of sessions) {
        c.stop();
        await c.closed;
      }
      const paygSpeakers = await Promise.all([0, 1, 2].map(() => open(payg.key, '/v1/realtime', true)));
      const closes = await Promise.all(
        paygSpeakers.map((c) =>
          c.next('ready').then(
            () => 'ready',
            async () => (await c.closed).reason,
          ),
        ),
      );
      t.same(closes.sort(), ['SPEAKER_CAPACITY_FULL', 'ready', 'ready'], 'two speaker rooms on pay as you go');
      for (const c of paygSpeakers) if (c.socket.readyState === WebSocket.OPEN) c.stop();
    });

    t.test('abusive clients are closed with a reason; a session beside them is not affected', async (t) => {
      const good = await connectRealtime(url);
      good.start(startMessage(svc.key));
      await good.next('ready');
      const streaming = good.stream(speech, { pace: 4 });
      const abuse = async (name: string, act: (c: RealtimeClient) => void, code: number, reason: string) => {
        const c = await connectRealtime(url);
        c.start(startMessage(svc.key));
        await c.next('ready');
        act(c);
        t.same(await c.closed, { code, reason }, name);
        t.notOk(JSON.stringify(c.events).includes('canary'), `${name}: nothing echoed`);
      };
      await abuse('text where audio is expected', (c) => c.socket.send('canary'), 1008, 'UNEXPECTED_TEXT');
      await abuse('an odd number of PCM16 bytes', (c) => c.socket.send(new Uint8Array(3201)), 1008, 'INVALID_AUDIO');
      await abuse(
        'audio far faster than real time',
        (c) => void c.stream(new Uint8Array(32_000 * 25), { frameMs: 1000, pace: 100 }),
        4429,
        'AUDIO_FASTER_THAN_REALTIME',
      );
      const big = await connectRealtime(url);
      big.start(startMessage(svc.key));
      await big.next('ready');
      big.socket.send(new Uint8Array(256 * 1024));
      t.same(await big.closed, { code: 1009, reason: 'FRAME_TOO_BIG' }, 'an oversized frame');
      await abuse(
        'audio after stop',
        (c) => {
          // Speech to finish, so the session is still stopping when the next frame arrives.
          c.socket.send(speech.subarray(0, 64_000));
          c.stop();
          c.socket.send(new Uint8Array(3200));
        },
        1008,
        'AUDIO_AFTER_STOP',
      );
      await streaming;
      good.stop();
      t.same(await good.closed, { code: 1000, reason: 'FINAL' }, 'the well-behaved session finished normally');
      checkStream(t, good.events);
    });
  });
}
