// Recognition with a prompt (src/pipeline/prompted-recognition.ts) on recorded engine outputs: a
// prompted decode and its context-free check per window, as the engine returns them. Every fallback
// trigger falls back to the context-free text, an unchanged window keeps the prompted one, and the
// tally says so. The engine's check decode itself: test/engine/context-free-check.test.ts.
import { readFileSync } from 'node:fs';

import t from 'tap';

import type { TranscribeOptions } from '../../src/engine/engine.js';
import type { Transcript } from '../../src/engine/transcript.js';
import { CHECK_LENGTH_BOUND, MAX_PROMPTED_TERMS, type Prompting, recognisePromptedWindow } from '../../src/pipeline/prompted-recognition.js';
import { recordedPass, type RecordedSegment } from '../helpers/recorded-pass.js';

type Case = { free: Array<[string, number, number]>; prompted: Array<[string, number, number]>; safe?: boolean; reasons?: string[] };
const cases = JSON.parse(readFileSync(new URL('../fixtures/vocabulary/check-cases.json', import.meta.url), 'utf8')) as Record<string, Case | string>;
const segs = (list: Array<[string, number, number]>): RecordedSegment[] => list.map(([text, start, end]) => ({ text, start, end }));

const PCM = new Float32Array(16_000 * 6);
const OPTIONS: TranscribeOptions = { language: 'en', tokenTimestamps: false };

/** An engine that answers with recorded passes: with the prompt (and the check decode), or without. */
function recordedEngine(prompted: Transcript, contextFree: Transcript) {
  const calls: TranscribeOptions[] = [];
  const transcribe = async (_pcm: Float32Array, options: TranscribeOptions): Promise<Transcript> => {
    calls.push(options);
    if (!options.initialPrompt) return contextFree;
    return options.contextFreeCheck ? { ...prompted, check: { ...contextFree, capped: false } } : prompted;
  };
  return { transcribe, calls };
}

const prompting = (terms: string[], wordTiming = false): Prompting => ({ terms, prompt: null, wordTiming });

for (const [name, c] of Object.entries(cases)) {
  if (typeof c === 'string') continue;
  t.test(`direct: ${name}`, async (t) => {
    const free = recordedPass(segs(c.free));
    const engine = recordedEngine(recordedPass(segs(c.prompted)), free);
    const out = await recognisePromptedWindow(PCM, OPTIONS, prompting(['metoprolol', 'warfarin']), engine.transcribe);
    t.equal(engine.calls.length, 1, 'one engine call: encode once, decode twice');
    t.equal(engine.calls[0].contextFreeCheck, true);
    t.equal(engine.calls[0].checkLengthBound, CHECK_LENGTH_BOUND);
    t.match(engine.calls[0].initialPrompt, /^metoprolol, warfarin\.$/);
    t.equal(out.tally.promptedChunks, 1);
    t.same(out.tally.promptedTerms, ['metoprolol', 'warfarin']);
    const text = out.segments.map((s) => s.text).join('');
    if (c.safe) {
      t.equal(out.tally.fallbackChunks, 0);
      t.equal(text, c.prompted.map((s) => s[0]).join(''), 'the prompted text stands');
    } else {
      t.equal(out.tally.fallbackChunks, 1);
      t.equal(text, c.free.map((s) => s[0]).join(''), 'the context-free text replaces it');
      t.same(Object.keys(out.tally.fallbackReasons).sort(), [...(c.reasons ?? [])].sort());
    }
  });
}

t.test('a fallback that needs word timing is decoded again by whisper_full, without the prompt', async (t) => {
  const c = cases['changed number'] as Case;
  const engine = recordedEngine(recordedPass(segs(c.prompted)), recordedPass(segs(c.free)));
  const out = await recognisePromptedWindow(PCM, OPTIONS, prompting(['metoprolol'], true), engine.transcribe);
  t.equal(engine.calls.length, 2);
  t.equal(engine.calls[1].initialPrompt, undefined);
  t.equal(engine.calls[1].contextFreeCheck, undefined);
  t.equal(out.tally.fallbackChunks, 1);
  t.equal(out.segments.map((s) => s.text).join(''), c.free[0][0]);
});

t.test('the caller prompt goes ahead of the terms and is checked the same way', async (t) => {
  const c = cases['lost negation'] as Case;
  const engine = recordedEngine(recordedPass(segs(c.prompted)), recordedPass(segs(c.free)));
  const out = await recognisePromptedWindow(PCM, OPTIONS, { terms: [], prompt: 'Cardiology clinic note.', wordTiming: false }, engine.transcribe);
  t.equal(engine.calls[0].initialPrompt, 'Cardiology clinic note.');
  t.equal(out.tally.fallbackChunks, 1);
  t.same(out.tally.promptedTerms, []);
});

t.test('suspect insertions: a term only the prompt printed, with low-probability tokens', async (t) => {
  const free = recordedPass([{ text: ' Continue the current dose daily.', start: 0, end: 3 }]);
  const low = recordedPass([{ text: ' Continue the apixaban dose daily.', start: 0, end: 3, p: [0.9, 0.9, 0.2, 0.9, 0.9] }]);
  const high = recordedPass([{ text: ' Continue the apixaban dose daily.', start: 0, end: 3, p: 0.95 }]);
  const suspect = await recognisePromptedWindow(PCM, OPTIONS, prompting(['apixaban']), recordedEngine(low, free).transcribe);
  t.equal(suspect.tally.fallbackChunks, 0);
  t.same(suspect.tally.suspectTerms, ['apixaban']);
  const confident = await recognisePromptedWindow(PCM, OPTIONS, prompting(['apixaban']), recordedEngine(high, free).transcribe);
  t.same(confident.tally.suspectTerms, [], 'confident tokens are not suspect');
  const heard = await recognisePromptedWindow(PCM, OPTIONS, prompting(['apixaban']), recordedEngine(low, low).transcribe);
  t.same(heard.tally.suspectTerms, [], 'a term the context-free pass heard too is not suspect');
});

t.test('retrieval: 1,000 terms, the five planted near-matches of the first pass are among the 50 prompted', async (t) => {
  const firstPass = recordedPass([
    { text: ' Started metoprolal and hydro chlorothiazide, stopped lisinoprill.', start: 0, end: 4 },
    { text: ' History of atrial fibrilation on apixiban.', start: 4, end: 7 },
  ]);
  const planted = ['metoprolol', 'hydrochlorothiazide', 'lisinopril', 'atrial fibrillation', 'apixaban'];
  // 995 distractors: pronounceable nonsense that shares no sound run with the first pass.
  const syllables = ['bu', 'ga', 'ro', 'ze', 'ki', 'mo', 'pe', 'ty', 'vu', 'wa', 'xo', 'ju'];
  const distractors = Array.from(
    { length: 995 },
    (_, i) => `${syllables[i % 12]}${syllables[Math.floor(i / 12) % 12]}${syllables[Math.floor(i / 144) % 12]}nex`,
  );
  const terms = [...distractors.slice(0, 500), ...planted, ...distractors.slice(500)];
  const engine = recordedEngine(firstPass, firstPass);
  const out = await recognisePromptedWindow(PCM, OPTIONS, prompting(terms), engine.transcribe);
  t.equal(engine.calls.length, 2, 'a first pass, then the prompted pass');
  t.equal(engine.calls[0].initialPrompt, undefined);
  t.equal(engine.calls[1].contextFreeCheck, undefined, 'the first pass is the check');
  t.equal(out.tally.promptedTerms.length, MAX_PROMPTED_TERMS);
  for (const term of planted) t.ok(out.tally.promptedTerms.includes(term), `${term} is prompted`);
  t.same(out.tally.promptedTerms.slice(0, 5).sort(), [...planted].sort(), 'and ranked first');
});
