import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import t from 'tap';

import { FFMPEG_ADDRESS_SPACE_BYTES } from '../../src/audio/ffmpeg-limits.js';
import { runAudioTool } from '../../src/audio/ffmpeg-process.js';
import { decodeAudio, probeAudio } from '../../src/audio/index.js';
import { expectAudioFailure } from '../fixtures/audio-failure-assertions.js';
import { fakeAudioTool } from '../fixtures/fake-audio-tools.js';
import { speechWav } from '../helpers/audio-fixtures.js';

// These tests are about ffmpeg's side: WAV inputs too go through it (directWav: false).
const DECODE = { maxSeconds: 60, timeoutMs: 30_000, directWav: false };
const PROBE = { timeoutMs: 30_000 };

/** A loopback HTTP server that counts the requests it receives: any request is a failure. */
async function requestCounter(t: { teardown(fn: () => unknown): void }): Promise<{ url: string; requests: () => number }> {
  let count = 0;
  const server: Server = createServer((request, response) => {
    count += 1;
    response.end('#EXTM3U\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests: () => count };
}

t.test('files that tell ffmpeg to open other resources are refused without any network access', async (t) => {
  const server = await requestCounter(t);
  const dir = t.testdir();
  const files = {
    'playlist.wav': `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:10,\n${server.url}/segment.ts\n#EXT-X-ENDLIST\n`,
    'concat.wav': `ffconcat version 1.0\nfile '${server.url}/a.wav'\nfile '/etc/passwd'\n`,
    'playlist.m3u8': `#EXTM3U\n#EXTINF:10,\n${server.url}/segment.ts\n#EXTINF:10,\nfile:///etc/passwd\n`,
  };
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, name);
    await writeFile(path, content);
    await expectAudioFailure(t, probeAudio(path, PROBE), 'unsupported_container', `${name}: probe`);
    await expectAudioFailure(t, decodeAudio(path, DECODE), 'unsupported_container', `${name}: decode`);
    // Even when a caller vouches for a container, ffmpeg is told which demuxer to use: the playlist
    // is parsed as MP3/WAV (and fails), never as HLS or concat.
    for (const container of ['mp3', 'wav'] as const) {
      await expectAudioFailure(t, probeAudio(path, { ...PROBE, container }), 'undecodable_audio', `${name} as ${container}: probe`);
      await expectAudioFailure(t, decodeAudio(path, { ...DECODE, container }), 'undecodable_audio', `${name} as ${container}: decode`);
    }
  }
  t.equal(server.requests(), 0, 'no request reached the server');
});

t.test('a path that looks like a URL is a path', async (t) => {
  const server = await requestCounter(t);
  const url = `${server.url}/recording.wav`;
  await t.rejects(decodeAudio(url, DECODE), { code: 'ENOENT' }, 'sniffing looks for a local file');
  await expectAudioFailure(t, decodeAudio(url, { ...DECODE, container: 'wav' }), 'undecodable_audio', 'ffmpeg looks for a local file');
  t.equal(server.requests(), 0, 'no request reached the server');
});

t.test('ffmpeg is started with the demuxer forced, a file: URL and the protocol whitelist', async (t) => {
  const recorder = await fakeAudioTool(t, 'exit 1');
  const wav = await speechWav(3);
  await decodeAudio(wav, { ...DECODE, ffmpegPath: recorder.path }).catch(() => undefined);
  const args = (await readFile(recorder.argsFile, 'utf8')).trimEnd().split('\n');
  const inputAt = args.indexOf('-i');
  t.equal(args[inputAt + 1], `file:${wav}`);
  const inputOptions = args.slice(0, inputAt);
  t.equal(inputOptions[inputOptions.indexOf('-protocol_whitelist') + 1], 'file,pipe');
  t.equal(inputOptions[inputOptions.indexOf('-f') + 1], 'wav');
  t.equal(args[args.indexOf('-t') + 1], '61.000', 'output bounded to maxSeconds + 1 s');
  t.equal(args[args.indexOf('-threads') + 1], '1');
  t.ok(args.includes('-max_alloc'));
});

t.test('subprocesses run under the address-space limit', async (t) => {
  let output = '';
  const ending = await runAudioTool({
    command: '/bin/sh',
    args: ['-c', 'ulimit -v'],
    timeoutMs: 10_000,
    onStdout: (chunk) => {
      output += chunk.toString();
      return 'continue';
    },
  });
  t.match(ending, { kind: 'exited', exitCode: 0 });
  t.equal(Number(output.trim()), FFMPEG_ADDRESS_SPACE_BYTES / 1024, 'ulimit -v as seen by the tool, in KiB');
});
