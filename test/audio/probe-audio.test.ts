import t from 'tap';

import { type AudioProbe, probeAudio } from '../../src/audio/index.js';
import { encodeAs, FIXTURE_FORMATS, type FixtureFormat, jfkWav, speechWav } from '../helpers/audio-fixtures.js';

const SECONDS = 8;

// What ffprobe reports for each fixture (see ENCODINGS in the fixtures): the source is 44.1 kHz
// stereo, Opus always runs at 48 kHz. 'measured' marks files whose headers carry no trustworthy
// duration: Matroska written to a pipe has none, raw ADTS only lets ffmpeg estimate from bitrate.
const EXPECTED: Record<FixtureFormat, Omit<AudioProbe, 'durationSeconds' | 'bitRate'>> = {
  wav: { container: 'wav', codec: 'pcm_s16le', sampleRate: 44100, channels: 2, durationSource: 'container' },
  mp3: { container: 'mp3', codec: 'mp3', sampleRate: 44100, channels: 2, durationSource: 'container' },
  m4a: { container: 'mp4', codec: 'aac', sampleRate: 44100, channels: 2, durationSource: 'container' },
  mp4: { container: 'mp4', codec: 'aac', sampleRate: 44100, channels: 2, durationSource: 'container' },
  webm: { container: 'webm', codec: 'opus', sampleRate: 48000, channels: 2, durationSource: 'container' },
  'webm-live': { container: 'webm', codec: 'opus', sampleRate: 48000, channels: 2, durationSource: 'measured' },
  ogg: { container: 'ogg', codec: 'vorbis', sampleRate: 44100, channels: 2, durationSource: 'container' },
  opus: { container: 'ogg', codec: 'opus', sampleRate: 48000, channels: 2, durationSource: 'container' },
  flac: { container: 'flac', codec: 'flac', sampleRate: 44100, channels: 2, durationSource: 'container' },
  aac: { container: 'aac', codec: 'aac', sampleRate: 44100, channels: 2, durationSource: 'measured' },
};

t.test('every container probes to the right container, codec and duration', async (t) => {
  const wav = await speechWav(SECONDS);
  for (const format of FIXTURE_FORMATS) {
    const probe = await probeAudio(await encodeAs(wav, format), { timeoutMs: 20_000 });
    t.match(probe, EXPECTED[format], `${format}: stream facts`);
    // Codec priming and padding add up to about 50 ms; a frame may be missing from a packet scan.
    t.ok(Math.abs(probe.durationSeconds - SECONDS) < 0.1, `${format}: ${probe.durationSeconds} s is about ${SECONDS} s`);
    if (format !== 'webm-live') t.ok(probe.bitRate !== undefined && probe.bitRate > 0, `${format}: bit rate`);
  }
});

t.test('the 16 kHz mono fixtures and the JFK sample', async (t) => {
  const speech = await probeAudio(await speechWav(SECONDS), { timeoutMs: 20_000 });
  t.same(speech, {
    durationSeconds: SECONDS,
    durationSource: 'container',
    container: 'wav',
    codec: 'pcm_s16le',
    sampleRate: 16000,
    channels: 1,
    bitRate: 256000,
  });
  const jfk = await probeAudio(await jfkWav(), { timeoutMs: 20_000 });
  t.match(jfk, { container: 'wav', sampleRate: 16000, channels: 1 });
  t.ok(Math.abs(jfk.durationSeconds - 11) < 0.1, `jfk is about 11 s (${jfk.durationSeconds})`);
});

t.test('a known container skips sniffing', async (t) => {
  const mp3 = await encodeAs(await speechWav(SECONDS), 'mp3');
  const probe = await probeAudio(mp3, { timeoutMs: 20_000, container: 'mp3' });
  t.equal(probe.container, 'mp3');
});
