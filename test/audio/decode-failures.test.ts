import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import t from 'tap';

import { AudioError, AudioTooLongError, AudioToolUnavailableError, decodeAudio, probeAudio } from '../../src/audio/index.js';
import { SAMPLE_RATE } from '../../src/domain/audio-format.js';
import { expectAudioFailure, processIsGone } from '../fixtures/audio-failure-assertions.js';
import { ENDLESS_ZEROS, fakeAudioTool, HANG, runReal } from '../fixtures/fake-audio-tools.js';
import { encodeAs, pngImage, randomBytesFile, speechWav, truncatedCopy, videoOnlyMp4 } from '../helpers/audio-fixtures.js';

// These tests are about ffmpeg's side: WAV inputs too go through it (directWav: false).
const DECODE = { maxSeconds: 60, timeoutMs: 30_000, directWav: false };
const PROBE = { timeoutMs: 30_000 };

async function readPid(pidFile: string): Promise<number> {
  for (let attempt = 0; attempt < 500; attempt += 1) {
    const text = await readFile(pidFile, 'utf8').catch(() => '');
    if (text.trim() !== '') return Number(text.trim());
    await sleep(10);
  }
  throw new Error(`no pid in ${pidFile}`);
}

t.test('an empty file is undecodable', async (t) => {
  const path = join(t.testdir(), 'empty.wav');
  await writeFile(path, '');
  await expectAudioFailure(t, probeAudio(path, PROBE), 'undecodable_audio', 'probe');
  await expectAudioFailure(t, decodeAudio(path, DECODE), 'undecodable_audio', 'decode');
});

t.test('random bytes, a PNG or a text file named .wav are an unsupported container', async (t) => {
  const dir = t.testdir();
  const random = join(dir, 'random.wav');
  await copyFile(await randomBytesFile(64 * 1024), random);
  const png = join(dir, 'image.wav');
  await copyFile(await pngImage(), png);
  const text = join(dir, 'text.wav');
  await writeFile(text, 'This is a discharge summary, not audio.\n'.repeat(50));
  for (const [name, path] of [
    ['random bytes', random],
    ['PNG', png],
    ['text', text],
  ]) {
    await expectAudioFailure(t, probeAudio(path, PROBE), 'unsupported_container', `${name}: probe`);
    await expectAudioFailure(t, decodeAudio(path, DECODE), 'unsupported_container', `${name}: decode`);
  }
});

t.test('a container without an audio stream is undecodable', async (t) => {
  const path = await videoOnlyMp4();
  const error = await expectAudioFailure(t, probeAudio(path, PROBE), 'undecodable_audio', 'probe');
  t.equal(error?.detail, 'no audio stream');
  await expectAudioFailure(t, decodeAudio(path, DECODE), 'undecodable_audio', 'decode');
});

t.test('truncated files', async (t) => {
  const wav = await speechWav(8);

  t.test('an M4A cut in half lost its index (moov is at the end): undecodable', async (t) => {
    const cut = await truncatedCopy(await encodeAs(wav, 'm4a'), 0.5);
    await expectAudioFailure(t, probeAudio(cut, PROBE), 'undecodable_audio', 'probe');
    await expectAudioFailure(t, decodeAudio(cut, DECODE), 'undecodable_audio', 'decode');
  });

  t.test('a WAV or MP3 cut in half still decodes its first half', async (t) => {
    for (const format of ['wav', 'mp3'] as const) {
      const cut = await truncatedCopy(await encodeAs(wav, format), 0.5);
      const pcm = await decodeAudio(cut, DECODE);
      const seconds = pcm.length / SAMPLE_RATE;
      t.ok(Math.abs(seconds - 4) < 0.15, `${format}: ${seconds} s`);
    }
    // The MP3's Xing header still announces the full length: headers are claims, decoding is the truth.
    const mp3Probe = await probeAudio(await truncatedCopy(await encodeAs(wav, 'mp3'), 0.5), PROBE);
    t.ok(mp3Probe.durationSeconds > 7.9, 'the cut MP3 still claims ~8 s');
  });

  t.test('a WAV header with no sample data is undecodable', async (t) => {
    const path = join(t.testdir(), 'header-only.wav');
    await writeFile(path, (await readFile(wav)).subarray(0, 44));
    await expectAudioFailure(t, decodeAudio(path, DECODE), 'undecodable_audio', 'decode');
  });
});

t.test('audio longer than maxSeconds: audio_too_long, and ffmpeg is stopped early', async (t) => {
  const mp3 = await encodeAs(await speechWav(20), 'mp3');
  const ffmpeg = await fakeAudioTool(t, runReal('ffmpeg'));
  const error = await expectAudioFailure(
    t,
    decodeAudio(mp3, { maxSeconds: 5, timeoutMs: 30_000, directWav: false, ffmpegPath: ffmpeg.path }),
    'audio_too_long',
    'decode',
  );
  t.ok(error instanceof AudioTooLongError);
  if (error instanceof AudioTooLongError) {
    t.equal(error.maxSeconds, 5);
    // `-t maxSeconds+1` bounds ffmpeg's output; the cap stops reading as soon as it is crossed.
    t.ok(error.durationSeconds !== undefined && error.durationSeconds > 5 && error.durationSeconds < 6.5, `stopped after ${error.durationSeconds} s of output`);
  }
  t.ok(processIsGone(await readPid(ffmpeg.pidFile)), 'the ffmpeg process is gone');
});

t.test('an ffmpeg that never stops producing output is killed at the cap', async (t) => {
  const endless = await fakeAudioTool(t, ENDLESS_ZEROS);
  const error = await expectAudioFailure(
    t,
    decodeAudio(await speechWav(3), { maxSeconds: 2, timeoutMs: 30_000, directWav: false, ffmpegPath: endless.path }),
    'audio_too_long',
    'decode',
  );
  t.ok(error instanceof AudioTooLongError && error.durationSeconds !== undefined && error.durationSeconds < 3);
  t.ok(processIsGone(await readPid(endless.pidFile)), 'the process is gone');
});

t.test('timeouts', async (t) => {
  t.test('a tiny timeout on a big file', async (t) => {
    const big = await speechWav(600);
    const error = await expectAudioFailure(t, decodeAudio(big, { maxSeconds: 700, timeoutMs: 1, directWav: false }), 'decode_timeout', 'decode');
    t.match(error, { timeoutMs: 1 });
  });

  t.test('a hanging ffmpeg is killed', async (t) => {
    const hang = await fakeAudioTool(t, HANG);
    await expectAudioFailure(
      t,
      decodeAudio(await speechWav(3), { maxSeconds: 10, timeoutMs: 300, directWav: false, ffmpegPath: hang.path }),
      'decode_timeout',
      'decode',
    );
    t.ok(processIsGone(await readPid(hang.pidFile)), 'the process is gone');
  });

  t.test('a hanging ffprobe is killed', async (t) => {
    const hang = await fakeAudioTool(t, HANG);
    await expectAudioFailure(t, probeAudio(await speechWav(3), { timeoutMs: 300, ffprobePath: hang.path }), 'decode_timeout', 'probe');
    t.ok(processIsGone(await readPid(hang.pidFile)), 'the process is gone');
  });
});

t.test('abort via AbortSignal', async (t) => {
  t.test('while ffmpeg runs', async (t) => {
    const hang = await fakeAudioTool(t, HANG);
    const controller = new AbortController();
    const decoding = decodeAudio(await speechWav(3), { maxSeconds: 10, timeoutMs: 30_000, signal: controller.signal, directWav: false, ffmpegPath: hang.path });
    const pid = await readPid(hang.pidFile);
    const reason = new Error('client went away');
    controller.abort(reason);
    const error = await expectAudioFailure(t, decoding, 'decode_aborted', 'decode');
    t.equal(error?.name, 'AbortError');
    t.equal(error?.cause, reason, 'the abort reason is the cause');
    t.ok(processIsGone(pid), 'the process is gone');
  });

  t.test('before it starts: no process is spawned', async (t) => {
    const tool = await fakeAudioTool(t, HANG);
    const signal = AbortSignal.abort();
    await expectAudioFailure(t, decodeAudio(await speechWav(3), { ...DECODE, signal, ffmpegPath: tool.path }), 'decode_aborted', 'decode');
    await expectAudioFailure(t, probeAudio(await speechWav(3), { ...PROBE, signal, ffprobePath: tool.path }), 'decode_aborted', 'probe');
    await t.rejects(readFile(tool.pidFile), { code: 'ENOENT' }, 'the tool never ran');
  });
});

t.test("ffmpeg's stderr stays on the non-enumerable detail, never in the message", async (t) => {
  const secret = 'SECRET-STDERR /uploads/jane-doe-psychiatry-visit.wav: Invalid data found';
  const failing = await fakeAudioTool(t, `echo '${secret}' >&2; exit 1`);
  const wav = await speechWav(3);
  for (const [what, run] of [
    ['decode', () => decodeAudio(wav, { ...DECODE, ffmpegPath: failing.path })],
    ['probe', () => probeAudio(wav, { ...PROBE, ffprobePath: failing.path })],
  ] as const) {
    const error = await expectAudioFailure(t, run(), 'undecodable_audio', what);
    t.ok(error?.detail?.includes(secret), `${what}: detail keeps the stderr tail for logs`);
    t.notOk(error?.message.includes('SECRET'), `${what}: not in the message`);
    t.notOk(JSON.stringify(error).includes('SECRET'), `${what}: not in JSON`);
    t.notOk(String(error).includes('SECRET'), `${what}: not in String(error)`);
  }
});

t.test('a missing ffmpeg is a server error, not an audio error', async (t) => {
  const wav = await speechWav(3);
  const missing = join(t.testdir(), 'no-such-ffmpeg');
  const decoding = decodeAudio(wav, { ...DECODE, ffmpegPath: missing });
  await t.rejects(decoding, AudioToolUnavailableError);
  await decoding.catch((error: unknown) => t.notOk(error instanceof AudioError));
  await t.rejects(probeAudio(wav, { ...PROBE, ffprobePath: missing }), AudioToolUnavailableError);
});

t.test('a missing file is a server error (the fs error), not an audio error', async (t) => {
  await t.rejects(decodeAudio(join(t.testdir(), 'gone.wav'), DECODE), { code: 'ENOENT' });
});

t.test('after all of the above, this process still decodes', async (t) => {
  const pcm = await decodeAudio(await encodeAs(await speechWav(3), 'mp3'), DECODE);
  t.ok(pcm.length > 2 * SAMPLE_RATE);
});
