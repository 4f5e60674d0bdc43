// The vocabulary safety check's second decode in the addon (native/context-free-decoder.h): the
// encoder output of a prompted whisper_full call decoded again, greedily and without the prompt.
// Checked against whisper.cpp's own decode of the same window without a prompt, and end to end
// through the pipeline on the real engine (random weights: the words are noise, the mechanics real).
import t from 'tap';

import { decodeAudio } from '../../src/audio/index.js';
import { parseLanguageTag } from '../../src/domain/language-families.js';
import { Engine, type TranscribeOptions } from '../../src/engine/engine.js';
import type { Transcript } from '../../src/engine/transcript.js';
import { vadModelPath } from '../../src/models/vad-model-path.js';
import { pipelineStages } from '../../src/pipeline/pipeline-engine.js';
import { runTranscription } from '../../src/pipeline/run-transcription.js';
import { speechWav } from '../helpers/audio-fixtures.js';
import { testModelPath } from '../helpers/test-models.js';

const GREEDY: TranscribeOptions = { language: 'en', strategy: 'greedy', beamSize: 1, temperatureInc: 0 };

t.test("the check decodes the prompted call's own encoder output as whisper decodes it without a prompt", async (t) => {
  const engine = await Engine.open({ model: await testModelPath('tiny', 3), workers: 1, threadsPerWorker: 2 });
  t.teardown(() => engine.close());
  const pcm = (await decodeAudio(await speechWav(60), { maxSeconds: 60, timeoutMs: 60_000 })).subarray(0, 25 * 16_000);
  const plain = await engine.transcribe(pcm, GREEDY);
  const prompted = await engine.transcribe(pcm, { ...GREEDY, initialPrompt: 'Metoprolol, lisinopril.' });
  const checked = await engine.transcribe(pcm, { ...GREEDY, initialPrompt: 'Metoprolol, lisinopril.', contextFreeCheck: true });
  t.ok(checked.check, 'the check ran');
  t.ok(checked.timings.checkMs > 0, 'and took time of its own');
  t.equal(checked.timings.encoderRuns, prompted.timings.encoderRuns, 'no encoder run of its own: encode once, decode twice');
  t.equal(checked.text, prompted.text, 'the prompted output is untouched by the check');
  // whisper_full without a prompt decodes the same first window by the same rules: the opening
  // segments agree (whisper may end the window earlier and seek, the check decodes it to its end).
  const first = plain.segments[0];
  const checkFirst = checked.check!.segments[0];
  t.ok(first && checkFirst, 'both decoded something');
  t.equal(checkFirst.text, first.text);
  t.equal(checkFirst.start, first.start);
  t.equal(checkFirst.end, first.end);
  t.ok(
    checked.check!.segments.every((s) => s.tokens.every((tk) => tk.start === null && tk.p >= 0 && tk.p <= 1)),
    'token probabilities, no token times',
  );
});

t.test('the check refuses more than one window of audio', async (t) => {
  const engine = await Engine.open({ model: await testModelPath('micro'), workers: 1 });
  t.teardown(() => engine.close());
  await t.rejects(engine.transcribe(new Float32Array(31 * 16_000), { ...GREEDY, contextFreeCheck: true }), /at most 30 s/);
});

t.test('pipeline: every window is prompted and checked, and the audit is complete and self-consistent', async (t) => {
  const engine = await Engine.open({ model: await testModelPath('tiny', 3), workers: 1, threadsPerWorker: 2, vadModel: vadModelPath() });
  t.teardown(() => engine.close());
  const pcm = await decodeAudio(await speechWav(45), { maxSeconds: 60, timeoutMs: 60_000 });
  const stages = pipelineStages(engine, {});
  const calls: Array<{ options: TranscribeOptions; result: Transcript }> = [];
  const transcribe = async (p: Float32Array, options: TranscribeOptions, signal?: AbortSignal) => {
    const result = await stages.transcribe(p, options, signal);
    calls.push({ options, result });
    return result;
  };
  const terms = ['metoprolol', 'lisinopril', 'atorvastatin', 'warfarin', 'apixaban'];
  const outcome = await runTranscription(
    pcm,
    {
      language: { mode: 'explicit', language: parseLanguageTag('en')!, source: 'requested' },
      dictionary: true,
      vocabulary: terms.slice(0, 3),
      prompt: 'Cardiology follow-up.',
      diarize: false,
    },
    {
      ...stages,
      transcribe,
      decoding: { beamSize: 1, maxTokens: 0, temperatureFallback: false },
      sampleRate: 16_000,
      dictionaryFor: async () => ['Warfarin', 'apixaban', 'METOPROLOL'],
    },
  );
  const prompted = calls.filter((c) => c.options.initialPrompt);
  t.ok(prompted.length >= 2, '45 s of speech is more than one window');
  t.ok(
    prompted.every((c) => c.options.initialPrompt === 'Cardiology follow-up. metoprolol, lisinopril, atorvastatin, Warfarin, apixaban.'),
    'caller prompt, then request terms above the dictionary',
  );
  t.ok(
    prompted.every((c) => c.result.check && c.result.timings.checkMs > 0),
    'each prompted call was checked',
  );
  const audit = outcome.vocabulary!;
  t.equal(audit.requested_terms, 5);
  t.equal(audit.delivered + audit.unresolved, audit.requested_terms);
  t.equal(audit.delivered_terms.length, audit.delivered);
  t.equal(audit.unresolved_terms.length, audit.unresolved);
  t.equal(audit.corrected_terms.length <= audit.corrections_applied, true);
  t.equal(audit.corrections.length, audit.corrections_applied);
  t.equal(audit.suspect_terms.length, audit.suspect_insertions);
  t.equal(audit.prompted_chunks, prompted.length);
  t.ok(audit.fallback_chunks <= audit.prompted_chunks);
  t.equal(audit.safety_fallback, audit.fallback_chunks > 0);
  t.equal(Object.values(audit.fallback_reasons).reduce((a, b) => a + (b ?? 0), 0) >= audit.fallback_chunks, true);
  t.equal(audit.prompted_terms, 5);
  t.equal(audit.prompt_supplied, true);
  t.equal(audit.applied_terms, audit.delivered);
  for (const term of audit.delivered_terms) t.match(outcome.text.toLowerCase(), term.toLowerCase());
});
