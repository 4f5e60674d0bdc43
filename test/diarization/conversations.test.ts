// The generated conversations the diarizer is measured on: their reference turns must be exactly
// where the voices speak, or every DER figure built on them is wrong.
import { readFile } from 'node:fs/promises';

import t from 'tap';

import { FIXTURE_SAMPLE_RATE } from '../helpers/audio-fixtures.js';
import { conversation } from '../helpers/conversations.js';

async function samplesOf(path: string): Promise<Int16Array> {
  const bytes = await readFile(path);
  return new Int16Array(bytes.buffer, bytes.byteOffset + 44, (bytes.length - 44) / 2);
}

for (const voices of [2, 3, 4] as const) {
  t.test(`${voices} voices: every voice speaks, turns are exact, pauses are silent`, async (t) => {
    const talk = await conversation({ voices, seed: 1 });
    const samples = await samplesOf(talk.path);
    t.equal(new Set(talk.turns.map((turn) => turn.speaker)).size, voices);
    t.equal(talk.turns.length, 12);
    t.ok(talk.seconds > 20, `${talk.seconds.toFixed(1)} s`);
    for (const [i, turn] of talk.turns.entries()) {
      t.ok(turn.end > turn.start && turn.start >= 0 && turn.end <= talk.seconds, `turn ${i} lies in the audio`);
      if (i > 0) t.ok(turn.start >= talk.turns[i - 1].start, 'in time order');
      const at = (seconds: number) => Math.round(seconds * FIXTURE_SAMPLE_RATE);
      t.ok(Math.abs(samples[at(turn.start)]) > 0 || Math.abs(samples[at(turn.start) + 1]) > 0, `turn ${i} starts with sound`);
    }
    // Outside every turn there is nothing at all: the mix adds only the voices' trimmed speech.
    const covered = new Uint8Array(samples.length);
    for (const turn of talk.turns) covered.fill(1, Math.floor(turn.start * FIXTURE_SAMPLE_RATE), Math.ceil(turn.end * FIXTURE_SAMPLE_RATE));
    let loudOutside = 0;
    for (let i = 0; i < samples.length; i++) if (!covered[i] && samples[i] !== 0) loudOutside++;
    t.equal(loudOutside, 0, 'silence between turns');
    const again = await conversation({ voices, seed: 1 });
    t.same(again.turns, talk.turns, 'deterministic');
  });
}

t.test('a few overlaps across seeds: two voices at once, in the reference too', async (t) => {
  let overlaps = 0;
  for (const seed of [1, 2, 3]) {
    const { turns } = await conversation({ voices: 3, seed });
    for (let i = 1; i < turns.length; i++) if (turns[i].start < turns[i - 1].end) overlaps++;
  }
  t.ok(overlaps >= 1, `${overlaps} overlaps in 3 conversations`);
  t.ok(overlaps <= 12, 'a few, not most');
});
