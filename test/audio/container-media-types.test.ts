import t from 'tap';

import { AUDIO_CONTAINERS, containerForFilename, containerForMimeType, filenameMatchesMimeType, mimeTypeForContainer } from '../../src/audio/index.js';

t.test('declared MIME types map to containers', async (t) => {
  const cases: Array<[string, string | null]> = [
    ['audio/wav', 'wav'],
    ['audio/x-wav', 'wav'],
    ['audio/wave', 'wav'],
    ['audio/mpeg', 'mp3'],
    ['audio/mp3', 'mp3'],
    ['audio/mp4', 'mp4'],
    ['audio/m4a', 'mp4'],
    ['audio/x-m4a', 'mp4'],
    ['video/mp4', 'mp4'],
    ['audio/webm', 'webm'],
    ['video/webm', 'webm'],
    ['audio/webm;codecs=opus', 'webm'],
    ['audio/ogg', 'ogg'],
    ['audio/ogg; codecs="opus"', 'ogg'],
    ['audio/opus', 'ogg'],
    ['audio/flac', 'flac'],
    ['audio/x-flac', 'flac'],
    ['audio/aac', 'aac'],
    ['audio/x-aac', 'aac'],
    ['AUDIO/MPEG', 'mp3'],
    ['  audio/wav  ', 'wav'],
    ['application/octet-stream', null],
    ['audio/aiff', null],
    ['image/png', null],
    ['text/plain', null],
    ['', null],
  ];
  for (const [mime, expected] of cases) t.equal(containerForMimeType(mime), expected, JSON.stringify(mime));
});

t.test('file name extensions map to containers', async (t) => {
  const cases: Array<[string, string | null]> = [
    ['visit.wav', 'wav'],
    ['VISIT.WAV', 'wav'],
    ['dictation.mp3', 'mp3'],
    ['memo.m4a', 'mp4'],
    ['video.mp4', 'mp4'],
    ['browser.webm', 'webm'],
    ['voice.ogg', 'ogg'],
    ['voice.opus', 'ogg'],
    ['lossless.flac', 'flac'],
    ['raw.aac', 'aac'],
    ['C:\\Users\\dr\\Recordings\\visit.m4a', 'mp4'],
    ['dir.wav/notes.txt', null],
    ['archive.tar.gz', null],
    ['no-extension', null],
    ['.wav', null],
  ];
  for (const [name, expected] of cases) t.equal(containerForFilename(name), expected, name);
});

t.test('canonical MIME types round-trip', async (t) => {
  for (const container of AUDIO_CONTAINERS) {
    t.equal(containerForMimeType(mimeTypeForContainer(container)), container, container);
  }
});

t.test('a file name matches its declared type only when both name the same container', async (t) => {
  t.ok(filenameMatchesMimeType('visit.wav', 'audio/x-wav'));
  t.ok(filenameMatchesMimeType('memo.m4a', 'audio/mp4'));
  t.ok(filenameMatchesMimeType('browser.webm', 'audio/webm;codecs=opus'));
  t.notOk(filenameMatchesMimeType('visit.wav', 'audio/mpeg'));
  t.notOk(filenameMatchesMimeType('memo.m4a', 'audio/aac'), 'AAC in MP4 is not a raw ADTS stream');
  t.notOk(filenameMatchesMimeType('notes.txt', 'text/plain'));
  t.notOk(filenameMatchesMimeType('upload', 'application/octet-stream'));
});
