import { inspect } from 'node:util';

import t from 'tap';

import {
  assertDurationWithin,
  AUDIO_ERROR_MESSAGES,
  AudioError,
  AudioTooLongError,
  AudioTooShortError,
  DecodeAbortedError,
  DecodeTimeoutError,
  isAudioError,
  UndecodableAudioError,
  UnsupportedContainerError,
} from '../../src/audio/index.js';

const STDERR = '[mp3 @ 0x55d] Header missing /uploads/jane-doe.mp3';

t.test('each error has its code and the fixed message for it', async (t) => {
  const errors: AudioError[] = [
    new UnsupportedContainerError(STDERR),
    new UndecodableAudioError(STDERR),
    new AudioTooLongError(7200, 7300.5, STDERR),
    new AudioTooShortError(1, 0.4, STDERR),
    new DecodeTimeoutError(5000, STDERR),
    new DecodeAbortedError(new Error('client went away')),
  ];
  t.same(
    errors.map((e) => e.code),
    ['unsupported_container', 'undecodable_audio', 'audio_too_long', 'audio_too_short', 'decode_timeout', 'decode_aborted'],
  );
  for (const error of errors) {
    t.ok(error instanceof Error && error instanceof AudioError && isAudioError(error), `${error.code}: is an AudioError`);
    t.equal(error.message, AUDIO_ERROR_MESSAGES[error.code], `${error.code}: fixed message`);
    t.notOk(JSON.stringify(error).includes('jane-doe'), `${error.code}: JSON carries no detail`);
    t.notOk(inspect(error).includes('jane-doe'), `${error.code}: inspect shows no detail`);
    t.notOk(Object.keys(error).includes('detail'), `${error.code}: detail is not enumerable`);
  }
  t.equal(errors[1].detail, STDERR, 'detail is there for whoever asks for it');
  t.notOk(isAudioError(new Error('x')));
});

t.test('the numbers a route needs are on the error', async (t) => {
  t.match(new AudioTooLongError(7200, 7300.5), { maxSeconds: 7200, durationSeconds: 7300.5 });
  t.match(new AudioTooShortError(1, 0.4), { minSeconds: 1, durationSeconds: 0.4 });
  t.match(new DecodeTimeoutError(5000), { timeoutMs: 5000 });
  const reason = new Error('client went away');
  t.match(new DecodeAbortedError(reason), { name: 'AbortError', cause: reason });
});

t.test('assertDurationWithin: the contract window is 1 s to max_audio_seconds', async (t) => {
  const window = { minSeconds: 1, maxSeconds: 7200 };
  t.doesNotThrow(() => assertDurationWithin(1, window));
  t.doesNotThrow(() => assertDurationWithin(7200, window));
  t.throws(() => assertDurationWithin(0.999, window), AudioTooShortError);
  t.throws(() => assertDurationWithin(7200.001, window), AudioTooLongError);
});
