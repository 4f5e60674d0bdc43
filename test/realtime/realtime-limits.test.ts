// The realtime limits that take minutes at their defaults, with short ones: a client that never sends
// `start`, minutes of silence, and a client that never reads its events (backpressure). Each on both
// transports, each closing only the offending connection: a well-behaved session beside it finishes.
import { readFile } from 'node:fs/promises';

import t from 'tap';
import WebSocket from 'ws';

import { KeyStandingWatch } from '../../src/billing/key-standing-watch.js';
import { UsageBilling } from '../../src/billing/usage-billing.js';
import { Engine } from '../../src/engine/engine.js';
import { vadModelPath } from '../../src/models/vad-model-path.js';
import { startRealtimeListener } from '../../src/realtime/realtime-listener.js';
import { openTransport } from '../../src/realtime/transport/open-transport.js';
import { CLOSE_BACKPRESSURE, type RealtimeConnection } from '../../src/realtime/transport/transport.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { connectRealtime, startMessage, wavPcm } from '../helpers/realtime-client.js';
import { UWS_SKIP } from '../helpers/realtime-transports.js';
import { testModelPath } from '../helpers/test-models.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
let svc: TestService;
let engine: Engine;
let speech: Uint8Array;

t.before(async () => {
  svc = await startTestService();
  // The listeners started here take seats through these stores: they count for a live instance only.
  await svc.stores.instances.register('test', 'all', Date.now(), 24 * 3_600_000);
  engine = await Engine.open({ model: await testModelPath('micro'), workers: 1, vadModel: vadModelPath(), vadWorkers: 1 });
  speech = wavPcm(await readFile(await speechWav(3)));
});
t.teardown(async () => {
  await engine.close();
  await svc.close();
});

for (const transport of ['uws', 'ws'] as const) {
  t.test(`transport ${transport}: no start in time, and minutes of silence, close with their reasons`, { skip: transport === 'uws' && UWS_SKIP }, async (t) => {
    const listener = await startRealtimeListener({
      host: '127.0.0.1',
      port: 0,
      transport,
      keys: svc.stores.keys,
      clientSecrets: svc.stores.clientSecrets,
      billing: new UsageBilling(svc.stores.usage, svc.stores.billing, Date.now, null, svc.service.instanceId),
      watch: new KeyStandingWatch(svc.stores.keys),
      seats: svc.stores.seats,
      engines: { 'svc-medical-1': engine, 'svc-medical-edge-1': engine },
      limits: { startTimeoutSeconds: 0.5, silenceTimeoutSeconds: 2 },
    });
    t.teardown(() => listener.close());

    const good = await connectRealtime(listener.url);
    good.start(startMessage(svc.key));
    await good.next('ready');

    const mute = await connectRealtime(listener.url);
    t.same(await mute.closed, { code: 4408, reason: 'START_TIMEOUT' }, 'no start message within the start timeout');
    t.match(mute.events, [{ type: 'error', code: 'invalid_request', reason: 'START_TIMEOUT' }]);

    const silent = await connectRealtime(listener.url);
    silent.start(startMessage(svc.key));
    await silent.next('ready');
    // Three seconds of digital silence at four times real time: past the two-second silence limit.
    await silent.stream(new Uint8Array(3 * 32_000), { pace: 4 });
    t.same(await silent.closed, { code: 4408, reason: 'SILENCE_TIMEOUT' }, 'silence past the limit');
    t.match(silent.events.at(-1), { type: 'error', reason: 'SILENCE_TIMEOUT' });

    // Speech keeps a session alive however long it runs; the well-behaved one finishes.
    await good.stream(speech, { pace: 4 });
    good.stop();
    t.same(await good.closed, { code: 1000, reason: 'FINAL' }, 'the session beside them finished normally');
    for (let i = 0; i < 100 && listener.sessions() > 0; i++) await new Promise((r) => setTimeout(r, 20));
    t.equal(listener.sessions(), 0, 'no session left open');
  });

  t.test(
    `transport ${transport}: a client that does not read is cut at the buffer limit; a reader beside it is not`,
    { skip: transport === 'uws' && UWS_SKIP },
    async (t) => {
      const server = await openTransport(transport);
      const closes: Array<{ who: string; code: number }> = [];
      const sent = new Map<string, number>();
      const listening = await server.listen(
        '127.0.0.1',
        0,
        ['/flood'],
        { maxFrameBytes: 1024, maxBufferedBytes: 256 * 1024, idleSeconds: 60 },
        (connection: RealtimeConnection) => {
          let who = '';
          return {
            // The client names itself, then the server sends 16 KiB events until the connection goes.
            message: (data) => {
              who = Buffer.from(data).toString();
              const event = 'x'.repeat(16 * 1024);
              const flood = () => {
                for (let i = 0; i < 16; i++) {
                  if (!connection.send(event)) return;
                  sent.set(who, (sent.get(who) ?? 0) + event.length);
                }
                if ((sent.get(who) ?? 0) < 64 * 1024 * 1024) setTimeout(flood, 1);
              };
              flood();
            },
            closed: (code) => closes.push({ who, code }),
          };
        },
      );
      t.teardown(() => listening.close());

      const open = async (_label: string) => {
        const socket = new WebSocket(`ws://127.0.0.1:${listening.port}/flood`);
        await new Promise((resolve) => socket.once('open', resolve));
        return socket;
      };
      const stalled = await open('stalled');
      // Stops reading: the kernel's buffers fill, then the server's own queue grows.
      (stalled as unknown as { _socket: { pause(): void } })._socket.pause();
      stalled.send('stalled');
      const reader = await open('reader');
      let received = 0;
      reader.on('message', (data) => {
        received += (data as Buffer).length;
        if (received >= 4 * 1024 * 1024) reader.close(1000);
      });
      reader.send('reader');

      await new Promise<void>((resolve) => {
        const check = setInterval(() => {
          if (closes.some((c) => c.who === 'stalled') && closes.some((c) => c.who === 'reader')) {
            clearInterval(check);
            resolve();
          }
        }, 20);
      });
      t.equal(closes.find((c) => c.who === 'stalled')!.code, CLOSE_BACKPRESSURE, 'the stalled client is cut with 4430');
      t.ok(sent.get('stalled')! < 64 * 1024 * 1024, `the server stopped sending to it after ${Math.round(sent.get('stalled')! / 1024)} KiB`);
      t.equal(closes.find((c) => c.who === 'reader')!.code, 1000, 'the reader beside it closed normally');
      t.ok(received >= 4 * 1024 * 1024, 'and received everything it read');
      stalled.terminate();
    },
  );
}
