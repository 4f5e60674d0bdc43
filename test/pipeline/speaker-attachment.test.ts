// The attachment rules (behavioural rules 5 and 6) on recorded-shape transcripts and diarizations:
// wording unchanged by splitting, words to the voice with most overlap, the max_speakers ceiling,
// transcript-only segments without word timing, and silence.
import t from 'tap';

import { NO_STAGE_TIME, noSpeakers, type SpeakerDiarization } from '../../src/engine/speaker-diarizer.js';
import type { TranscriptToken } from '../../src/engine/transcript.js';
import type { RecognisedSegment } from '../../src/pipeline/recognised-segment.js';
import { attachSpeakers, attachSpeakersToShaped, unattributed, voiceAt } from '../../src/pipeline/speaker-attachment.js';
import { wordsFromSegments } from '../../src/pipeline/words.js';

/** A segment of words, each [text, start, end] (text with its leading space, as whisper's BPE). */
function segment(words: Array<[string, number, number]>): RecognisedSegment {
  const special = (id: number): TranscriptToken => ({
    id,
    text: '',
    bytes: new Uint8Array(),
    p: 1,
    logprob: 0,
    start: null,
    end: null,
    dtw: null,
    special: true,
  });
  const tokens: TranscriptToken[] = [special(50364)];
  for (const [text, start, end] of words) {
    // Two tokens per word, the second continuing it, to check joins at token boundaries.
    const cut = Math.max(1, Math.ceil(text.length / 2));
    const mid = (start + end) / 2;
    tokens.push({ id: 1, text: text.slice(0, cut), bytes: Buffer.from(text.slice(0, cut)), p: 0.9, logprob: -0.1, start, end: mid, dtw: null, special: false });
    if (text.length > cut)
      tokens.push({ id: 2, text: text.slice(cut), bytes: Buffer.from(text.slice(cut)), p: 0.9, logprob: -0.1, start: mid, end, dtw: null, special: false });
  }
  tokens.push(special(50257));
  return {
    start: words[0][1],
    end: words[words.length - 1][2],
    text: words.map((w) => w[0]).join(''),
    noSpeechProb: 0.01,
    speakerTurnNext: false,
    tokens,
    language: 'en',
  };
}

const conversationSegments = [
  segment([
    [' Good', 0.0, 0.4],
    [' morning,', 0.4, 0.9],
    [' how', 1.0, 1.2],
    [' are', 1.2, 1.4],
    [' you?', 1.4, 1.8],
  ]),
  segment([
    [' Chest', 2.0, 2.4],
    [' pain', 2.4, 2.8],
    [' since', 2.8, 3.2],
    [' Monday.', 3.2, 3.8],
    [' Any', 4.0, 4.3],
    [' fever?', 4.3, 4.9],
  ]),
];
const twoVoices: SpeakerDiarization = {
  voices: 2,
  profiles: [],
  timings: { totalMs: 1, stages: { ...NO_STAGE_TIME } },
  turns: [
    { start: 0, end: 1.9, speaker: 0 },
    { start: 1.95, end: 3.9, speaker: 1 },
    { start: 3.95, end: 5, speaker: 0 },
  ],
};

const fourVoices: SpeakerDiarization = {
  voices: 4,
  profiles: [],
  timings: { totalMs: 1, stages: { ...NO_STAGE_TIME } },
  turns: [
    { start: 0, end: 1.9, speaker: 0 },
    { start: 1.95, end: 2.9, speaker: 1 },
    { start: 2.95, end: 3.9, speaker: 2 },
    { start: 3.95, end: 5, speaker: 3 },
  ],
};

t.test('segments split at voice changes; the wording is unchanged byte for byte', async (t) => {
  const a = attachSpeakers({ segments: conversationSegments, diarization: twoVoices, wordTiming: true, maxSpeakers: 4 });
  t.same(
    a.segments.map((s) => [s.speaker, s.text]),
    [
      ['A', ' Good morning, how are you?'],
      ['B', ' Chest pain since Monday.'],
      ['A', ' Any fever?'],
    ],
  );
  t.equal(a.segments.map((s) => s.text).join(''), conversationSegments.map((s) => s.text).join(''), 'concatenated text identical');
  t.equal(a.segments.flatMap((s) => s.tokens).length, conversationSegments.flatMap((s) => s.tokens).length, 'every token kept once');
  t.same(a.speakers, [{ speaker: 'A' }, { speaker: 'B' }]);
  t.equal(a.segments[2].start, 4.0, 'a split piece starts at its first word');
  t.equal(a.segments[1].end, 4.0, 'and the piece before ends there');
  t.same(
    a.words!.map((w) => [w.word, w.speaker]),
    [
      ['Good', 'A'],
      ['morning,', 'A'],
      ['how', 'A'],
      ['are', 'A'],
      ['you?', 'A'],
      ['Chest', 'B'],
      ['pain', 'B'],
      ['since', 'B'],
      ['Monday.', 'B'],
      ['Any', 'A'],
      ['fever?', 'A'],
    ],
  );
  for (let i = 1; i < a.words!.length; i++) t.ok(a.words![i].start >= a.words![i - 1].end, 'words never overlap');
  t.same(
    a.speakerSegments.map((s) => s.speaker),
    ['A', 'B', 'A'],
  );
  t.same(a.timing, { word_timing: true, speaker_ceiling_reached: false, requested_max_speakers: 4, detected_speaker_count: 2, speaker_ceiling_action: 'none' });
});

t.test('a word goes to the voice with the most overlap, or the nearest turn', async (t) => {
  const turns = [
    { start: 0, end: 1, speaker: 0 },
    { start: 1, end: 3, speaker: 1 },
  ];
  t.equal(voiceAt(turns, 0.5, 1.2), 0, 'more of it in voice 0');
  t.equal(voiceAt(turns, 0.9, 1.5), 1, 'more of it in voice 1');
  t.equal(voiceAt(turns, 3.5, 3.8), 1, 'after every turn: the nearest');
  t.equal(voiceAt([], 0, 1), -1, 'no turns: nobody');
});

t.test('max_speakers is a labelling ceiling: excess voices are unlabelled and marked for review', async (t) => {
  const a = attachSpeakers({ segments: conversationSegments, diarization: fourVoices, wordTiming: true, maxSpeakers: 2 });
  // The two voices with the most speech keep labels: voice 0 (1.9 s) and voice 3 (1.05 s).
  t.same(a.speakers, [{ speaker: 'A' }, { speaker: 'B' }]);
  t.same(
    a.segments.map((s) => [s.speaker, s.reviewRequired, s.text]),
    [
      ['A', false, ' Good morning, how are you?'],
      ['unknown', true, ' Chest pain'],
      ['unknown', true, ' since Monday.'],
      ['B', false, ' Any fever?'],
    ],
  );
  t.equal(a.segments.map((s) => s.text).join(''), conversationSegments.map((s) => s.text).join(''));
  t.same(a.timing, {
    word_timing: true,
    speaker_ceiling_reached: true,
    requested_max_speakers: 2,
    detected_speaker_count: 4,
    speaker_ceiling_action: 'unlabelled_review_required',
  });
  const excess = a.words!.filter((w) => w.review_required);
  t.same(
    excess.map((w) => w.word),
    ['Chest', 'pain', 'since', 'Monday.'],
  );
  t.ok(
    excess.every((w) => w.speaker === undefined),
    'unlabelled',
  );
  t.same(
    a.speakerSegments.map((s) => [s.speaker, s.review_required ?? false]),
    [
      ['A', false],
      ['unknown', true],
      ['unknown', true],
      ['B', false],
    ],
  );
  t.ok(
    a.speakerSegments.every((s, i) => s.start === fourVoices.turns[i].start && s.end === fourVoices.turns[i].end),
    'excess passages keep their times',
  );
});

t.test('without word timing (Arabic, Hindi) segments stay transcript-only; speaker_segments carry ownership', async (t) => {
  const a = attachSpeakers({ segments: conversationSegments, diarization: twoVoices, wordTiming: false, maxSpeakers: 4 });
  t.same(
    a.segments.map((s) => s.speaker),
    ['unknown', 'unknown'],
  );
  t.same(
    a.segments.map((s) => s.text),
    conversationSegments.map((s) => s.text),
    'segments unsplit',
  );
  t.equal(a.words, null);
  t.same(
    a.speakerSegments.map((s) => s.speaker),
    ['A', 'B', 'A'],
  );
  t.same(a.speakers, [{ speaker: 'A' }, { speaker: 'B' }]);
  t.equal(a.timing.word_timing, false);
});

t.test('silence: no speakers, nothing attributed', async (t) => {
  const a = attachSpeakers({ segments: [], diarization: noSpeakers(), wordTiming: true, maxSpeakers: 4 });
  t.same(a.speakers, []);
  t.same(a.speakerSegments, []);
  t.equal(a.timing.detected_speaker_count, 0);
  const off = unattributed(conversationSegments, false);
  t.same(
    off.segments.map((s) => s.speaker),
    ['unknown', 'unknown'],
  );
  t.equal(off.timing.requested_max_speakers, null);
});

// A long job's transcript is shaped before its speakers arrive (job-decoration.ts): trimmed segment
// texts, ids, confidences, flat words. Attached there, it must say what the inline attachment says.
function shaped(segments: RecognisedSegment[]) {
  return segments.map((s, i) => ({ id: `seg_${i}`, text: s.text.trim(), start: s.start, end: s.end, speaker: 'unknown', confidence: 0.5 + i / 10 }));
}

t.test('a shaped transcript gets the same speakers, pieces and words as the inline attachment', async (t) => {
  for (const [diarization, maxSpeakers] of [
    [twoVoices, 4],
    [fourVoices, 2],
    [fourVoices, 4],
  ] as const) {
    const inline = attachSpeakers({ segments: conversationSegments, diarization, wordTiming: true, maxSpeakers });
    const job = attachSpeakersToShaped({
      segments: shaped(conversationSegments),
      words: wordsFromSegments(conversationSegments),
      diarization,
      wordTiming: true,
      maxSpeakers,
    });
    t.same(
      job.segments.map((s) => [s.speaker, s.review_required ?? false, s.text, s.start, s.end]),
      inline.segments.map((s) => [s.speaker, s.reviewRequired, s.text.trim(), s.start, s.end]),
      `pieces (${diarization.voices} voices, ceiling ${maxSpeakers})`,
    );
    t.same(job.words, inline.words, 'words and their speakers');
    t.same([job.speakers, job.speakerSegments, job.timing], [inline.speakers, inline.speakerSegments, inline.timing]);
    t.same(
      job.segments.map((s) => s.id),
      job.segments.map((_, i) => `seg_${i}`),
      'ids renumbered',
    );
  }
  const job = attachSpeakersToShaped({
    segments: shaped(conversationSegments),
    words: wordsFromSegments(conversationSegments),
    diarization: twoVoices,
    wordTiming: true,
    maxSpeakers: 4,
  });
  t.same(
    job.segments.map((s) => s.confidence),
    [0.5, 0.6, 0.6],
    "a piece keeps its segment's confidence",
  );
  t.equal(
    job.segments.map((s) => s.text).join(' '),
    shaped(conversationSegments)
      .map((s) => s.text)
      .join(' '),
    'the wording is unchanged',
  );
});

t.test('a shaped transcript: repeated words, segments without words, and no word timing', async (t) => {
  const repeated = [
    segment([
      [' No.', 0.0, 0.5],
      [' No', 1.0, 1.3],
    ]),
    segment([
      [' no', 2.0, 2.3],
      [' pain.', 2.3, 2.8],
    ]),
  ];
  const turns: SpeakerDiarization = {
    voices: 2,
    profiles: [],
    timings: { totalMs: 1, stages: { ...NO_STAGE_TIME } },
    turns: [
      { start: 0, end: 0.8, speaker: 0 },
      { start: 0.9, end: 3, speaker: 1 },
    ],
  };
  const job = attachSpeakersToShaped({ segments: shaped(repeated), words: wordsFromSegments(repeated), diarization: turns, wordTiming: true, maxSpeakers: 4 });
  t.same(
    job.segments.map((s) => [s.speaker, s.text]),
    [
      ['A', 'No.'],
      ['B', 'No'],
      ['B', 'no pain.'],
    ],
  );
  t.equal(job.words!.length, 4);

  // A segment whose words were lost keeps its text and takes the voice of its time span.
  const lost = attachSpeakersToShaped({
    segments: shaped(repeated),
    words: wordsFromSegments(repeated).slice(0, 2),
    diarization: turns,
    wordTiming: true,
    maxSpeakers: 4,
  });
  t.same(
    lost.segments.map((s) => [s.speaker, s.text]),
    [
      ['A', 'No.'],
      ['B', 'No'],
      ['B', 'no pain.'],
    ],
  );

  const none = attachSpeakersToShaped({ segments: shaped(repeated), words: null, diarization: turns, wordTiming: false, maxSpeakers: 4 });
  t.same(
    none.segments.map((s) => [s.speaker, s.text]),
    [
      ['unknown', 'No. No'],
      ['unknown', 'no pain.'],
    ],
    'transcript-only segments',
  );
  t.equal(none.words, null);
  t.same(
    none.speakerSegments.map((s) => s.speaker),
    ['A', 'B'],
    'ownership in speaker_segments only',
  );
  t.equal(none.timing.word_timing, false);
});

t.test('known speakers: a matched voice carries its name, the others letters from A; a named voice is kept under the ceiling', async (t) => {
  // Profiles far apart in one compared coefficient (c5; matching leaves out c1 and c2), with unit spread: voice 1 is the reference's, voice 0 nobody's.
  const profile = (offset: number) => {
    const covariance = new Float64Array(19 * 19);
    for (let i = 0; i < 19; i++) covariance[i * 19 + i] = 1;
    const mean = new Float64Array(19);
    mean[4] = offset;
    return { frames: 500, mean, covariance };
  };
  const diarization: SpeakerDiarization = { ...twoVoices, profiles: [profile(0), profile(5)] };
  const known = [
    { name: 'Dr Ames', profile: profile(5.1) },
    { name: 'Nurse Ray', profile: profile(-5) },
  ];
  const a = attachSpeakers({ segments: [], diarization, wordTiming: true, maxSpeakers: 4, knownSpeakers: known });
  t.same(a.speakers, [{ speaker: 'A' }, { speaker: 'Dr Ames' }]);
  t.same(
    a.speakerSegments.map((s) => s.speaker),
    ['A', 'Dr Ames', 'A'],
  );
  t.same(a.timing.known_speakers, [
    { name: 'Dr Ames', matched: true, similarity: 0.995 },
    { name: 'Nurse Ray', matched: false, similarity: 0 },
  ]);
  const ceiling = attachSpeakers({ segments: [], diarization, wordTiming: true, maxSpeakers: 1, knownSpeakers: known });
  t.same(ceiling.speakers, [{ speaker: 'Dr Ames' }], 'the named voice keeps its label under a ceiling of one, though the other spoke as long');
  const anonymous = attachSpeakers({ segments: [], diarization, wordTiming: true, maxSpeakers: 4 });
  t.equal(anonymous.timing.known_speakers, undefined, 'without known speakers the timing is as before');
});
