// The engine's scheduler with real workers (src/engine/work-scheduler.ts for its rules, tested on
// their own in work-scheduler.test.ts): urgent calls go before batch calls waiting, and with an urgent
// worker a running batch call is held, not interrupted, while an urgent call runs: its result is the
// same as when it runs alone, and a held call can still be aborted. A call alone on a quiet engine is
// lent the idle workers' threads, and decodes the same tokens.
import { readdirSync, readFileSync } from 'node:fs';

import t from 'tap';

import { decodeAudio } from '../../src/audio/index.js';
import type { EngineWork } from '../../src/domain/work-classes.js';
import { Engine } from '../../src/engine/engine.js';
import { vadModelPath } from '../../src/models/vad-model-path.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { testModelPath } from '../helpers/test-models.js';

const options = { language: 'en', temperatureInc: 0, maxTokens: 24 };
const batch: EngineWork = { workClass: 'batch', tenant: 'tenant-a', request: 'job-1' };
const urgent: EngineWork = { workClass: 'realtime_final', tenant: 'tenant-b', request: 'session-1' };

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Nice values of this process's threads (Linux: field 19 of /proc/self/task/<tid>/stat). */
function threadNiceValues(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

t.test('batch work computes on background-priority threads, other work at the process priority', async (t) => {
  const model = await testModelPath('micro');
  const pcm = await decodeAudio(await speechWav(3), { maxSeconds: 60, timeoutMs: 60_000 });
  const engine = await Engine.open({ model, workers: 1, threadsPerWorker: 1 });
  t.teardown(() => engine.close());
  const own = threadNiceValues()[0];
  // First in this file (its own process): no batch call has run yet.
  const before = threadNiceValues().filter((nice) => nice > own).length;
  t.equal(before, 0);
  await engine.transcribe(pcm, options, { work: { workClass: 'interactive', tenant: 'a', request: 'r' } });
  t.equal(threadNiceValues().filter((nice) => nice > own).length, before, 'an inline call added no lowered thread');
  await engine.transcribe(pcm, options, { work: batch });
  const lowered = threadNiceValues().filter((nice) => nice > own);
  t.ok(lowered.length > before, 'a batch call ran on a thread of lowered priority');
  t.ok(
    lowered.every((nice) => nice === Math.min(19, own + 10)),
    `lowered by 10 (${lowered.join(', ')})`,
  );
});

t.test('an urgent call holds a running batch call on a spare worker; the held call ends as it would alone', async (t) => {
  const model = await testModelPath('tiny');
  const long = await decodeAudio(await speechWav(29), { maxSeconds: 60, timeoutMs: 60_000 });
  const short = await decodeAudio(await speechWav(4, { seed: 2 }), { maxSeconds: 60, timeoutMs: 60_000 });
  const engine = await Engine.open({ model, workers: 1, threadsPerWorker: 1, urgentWorkers: 1 });
  t.teardown(() => engine.close());
  const alone = await engine.transcribe(long, options, { work: batch });

  const order: string[] = [];
  const held = engine.transcribe(long, options, { work: batch }).then((r) => {
    order.push('batch');
    return r;
  });
  // In the same tick: the batch call is held before it reaches its first check point (before it takes
  // a decoding state or computes its mel), so it waits for the whole urgent call, whatever the load on
  // the machine. (Held only at its encoder, on a slow box it reached that point after the urgent call
  // had ended: it ran second, never held.)
  const quick = engine.transcribe(short, options, { work: urgent }).then((r) => {
    order.push('urgent');
    return r;
  });
  t.equal(engine.stats.held, 1, 'the batch call is held');
  t.equal(engine.stats.running, 2, 'the urgent call runs on the spare worker');
  await quick;
  t.same(order, ['urgent'], 'the urgent call ended first');
  const result = await held;
  t.same(order, ['urgent', 'batch']);
  t.equal(engine.stats.held, 0);
  t.equal(engine.stats.holds, 1);
  t.ok(result.timings.heldMs > 0, `the batch call spent ${Math.round(result.timings.heldMs)} ms held`);
  t.equal(alone.timings.heldMs, 0, 'a call never held reports none');
  t.equal(result.text, alone.text, 'held and resumed, the batch call decoded what it decodes alone');
  t.same(
    result.segments.map((s) => s.tokens.map((x) => x.id)),
    alone.segments.map((s) => s.tokens.map((x) => x.id)),
  );

  // A held call aborted while held stops, and the urgent call is unaffected.
  const abort = new AbortController();
  const doomed = engine.transcribe(long, options, { work: batch, signal: abort.signal });
  const second = engine.transcribe(short, options, { work: urgent });
  t.equal(engine.stats.held, 1);
  abort.abort();
  await t.rejects(doomed, { name: 'AbortError' });
  t.ok((await second).durationSeconds > 0);
  await until(() => engine.stats.running === 0, 'the workers to be free');
  t.equal(engine.stats.held, 0);
});

t.test('without spare workers an urgent call waits for the running one, then goes before batch calls that waited longer', async (t) => {
  const model = await testModelPath('micro');
  const pcm = await decodeAudio(await speechWav(8), { maxSeconds: 60, timeoutMs: 60_000 });
  const engine = await Engine.open({ model, workers: 1, threadsPerWorker: 1, urgentWorkers: 0 });
  t.teardown(() => engine.close());
  const order: string[] = [];
  const call = (name: string, work: EngineWork) => engine.transcribe(pcm, options, { work }).then(() => order.push(name));
  const calls = [
    call('batch-running', batch),
    call('batch-waiting-1', { ...batch, request: 'job-2' }),
    call('batch-waiting-2', { ...batch, request: 'job-3' }),
    call('inline', { workClass: 'interactive', tenant: 'tenant-c', request: 'req-1' }),
    call('final', urgent),
  ];
  t.equal(engine.stats.held, 0);
  await Promise.all(calls);
  t.same(order, ['batch-running', 'final', 'inline', 'batch-waiting-1', 'batch-waiting-2']);
  t.equal(engine.stats.holds, 0, 'nothing held without a spare worker');
  t.equal(engine.stats.classes.batch.dispatched, 3);
  t.equal(engine.stats.classes.realtime_final.dispatched, 1);
});

t.test("the VAD pool: a realtime call holds a job's VAD calls between their chunks and ends first", async (t) => {
  const model = await testModelPath('micro');
  const long = await decodeAudio(await speechWav(240), { maxSeconds: 300, timeoutMs: 60_000 });
  const short = await decodeAudio(await speechWav(3, { seed: 2 }), { maxSeconds: 60, timeoutMs: 60_000 });
  const engine = await Engine.open({ model, workers: 1, threadsPerWorker: 1, vadModel: vadModelPath() });
  t.teardown(() => engine.close());
  const alone = await engine.detectSpeech(long, {}, { work: batch });
  const order: string[] = [];
  // The long recording is split between the VAD workers: both are held, in the same tick.
  const job = engine.detectSpeech(long, {}, { work: batch }).then((r) => (order.push('job'), r));
  const turn = engine.detectSpeech(short, {}, { work: urgent }).then((r) => (order.push('turn'), r));
  t.ok(engine.stats.vad!.holds >= 1, `held ${engine.stats.vad!.holds} time(s)`);
  await Promise.all([job, turn]);
  t.same(order, ['turn', 'job'], 'the realtime call ended first');
  t.same((await job).segments, alone.segments, 'held and resumed, the same speech was found');
});

t.test("a call alone on a quiet engine computes with the idle worker's threads and decodes what it decodes on one", async (t) => {
  const model = await testModelPath('tiny');
  const pcm = await decodeAudio(await speechWav(12, { seed: 4 }), { maxSeconds: 60, timeoutMs: 60_000 });
  const inline: EngineWork = { workClass: 'interactive', tenant: 'tenant-a', request: 'req-1' };
  const lending = await Engine.open({ model, workers: 2, threadsPerWorker: 1, urgentWorkers: 0 });
  t.teardown(() => lending.close());
  const lent = await lending.transcribe(pcm, options, { work: inline });
  t.equal(lending.stats.lent, 1, 'the idle worker was lent');
  // Two calls at once: each computes on its own worker, nothing is lent.
  await Promise.all([
    lending.transcribe(pcm, options, { work: { ...inline, request: 'req-2' } }),
    lending.transcribe(pcm, options, { work: { ...inline, request: 'req-3' } }),
  ]);
  t.equal(lending.stats.lent, 1);
  const single = await Engine.open({ model, workers: 2, threadsPerWorker: 1, urgentWorkers: 0, lendIdleWorkers: false });
  t.teardown(() => single.close());
  const alone = await single.transcribe(pcm, options, { work: inline });
  t.equal(single.stats.lent, 0);
  t.equal(lent.text, alone.text, 'two threads decoded the text one thread decodes');
  t.same(
    lent.segments.map((s) => s.tokens.map((x) => x.id)),
    alone.segments.map((s) => s.tokens.map((x) => x.id)),
  );
});
