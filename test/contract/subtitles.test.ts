// The srt and vtt formats on hand-made segments: numbering, hour-long times, voices only for
// attributed segments, WebVTT escaping (a transcript holding `-->` or markup cannot break a cue),
// and segments without text left out.
import t from 'tap';

import { subtitles } from '../../src/contract/subtitles.js';

const cues = [
  { start: 0, end: 1.5, text: ' Blood pressure <b>120</b> --> fine & stable ', speaker: 'A' },
  { start: 2, end: 2.5, text: '   ', speaker: 'B' },
  { start: 3661.0004, end: 3662.9996, text: 'next\nline', speaker: 'unknown' },
  { start: 4000, end: 4001, text: 'no speakers at all' },
];

t.test('SubRip', async (t) => {
  const { contentType, body } = subtitles('srt', cues);
  t.equal(contentType, 'text/plain; charset=utf-8');
  t.equal(
    body,
    '1\n00:00:00,000 --> 00:00:01,500\nA: Blood pressure <b>120</b> --> fine & stable\n\n' +
      '2\n01:01:01,000 --> 01:01:03,000\nnext line\n\n' +
      '3\n01:06:40,000 --> 01:06:41,000\nno speakers at all\n',
  );
});

t.test('WebVTT', async (t) => {
  const { contentType, body } = subtitles('vtt', cues);
  t.equal(contentType, 'text/vtt; charset=utf-8');
  t.equal(
    body,
    'WEBVTT\n\n' +
      '00:00:00.000 --> 00:00:01.500\n<v A>Blood pressure &lt;b&gt;120&lt;/b&gt; --&gt; fine &amp; stable\n\n' +
      '01:01:01.000 --> 01:01:03.000\nnext line\n\n' +
      '01:06:40.000 --> 01:06:41.000\nno speakers at all\n',
  );
  t.equal(subtitles('vtt', []).body, 'WEBVTT\n\n', 'silence: a valid empty file');
  t.equal(subtitles('srt', []).body, '');
});
