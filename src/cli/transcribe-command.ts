// svc-stt transcribe FILE — the local runtime: whole-file transcription with no server.
import { parseArgs } from 'node:util';

import { decodeAudio } from '../audio/index.js';
import { KNOWN_POLICIES, RedactionPolicyError, resolvePolicies } from '../clinical-text/redaction-classes.js';
import { Engine } from '../engine/engine.js';
import { DIARIZER_MAX_VOICES } from '../engine/speaker-diarizer.js';
import { vadModelPath } from '../models/vad-model-path.js';
import { parsePatterns } from '../pipeline/patterns.js';
import { transcribePcm } from '../pipeline/transcribe-pcm.js';
import { existingModelFile, modelArgument } from './model-file-argument.js';
import { optionalInteger } from './numeric-options.js';
import { formatTranscript, OUTPUT_FORMATS, type OutputFormat } from './transcript-output.js';
import { UsageError } from './usage-error.js';

const MAX_LOCAL_SECONDS = 7200;

export async function runTranscribeCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      model: { type: 'string' },
      language: { type: 'string', default: 'en' },
      format: { type: 'string', default: 'text' },
      threads: { type: 'string' },
      'beam-size': { type: 'string' },
      'max-tokens': { type: 'string' },
      'no-fallback': { type: 'boolean', default: false },
      // The same stages as the service: the VAD decides what is decoded; --no-vad decodes everything, to compare.
      'no-vad': { type: 'boolean', default: false },
      // Who spoke when (native diarizer), and word timestamps.
      diarize: { type: 'boolean', default: false },
      'max-speakers': { type: 'string' },
      words: { type: 'boolean', default: false },
      // Word times by DTW over the model's alignment heads (slower: see `bench word-alignment`).
      dtw: { type: 'boolean', default: false },
      // Structured-token patterns, comma-separated as in the API (PATTERNS.md).
      patterns: { type: 'string' },
      // The service's smart_format and redact (docs/API.md): clinical quantities written, PHI removed.
      'smart-format': { type: 'boolean', default: false },
      redact: { type: 'string' },
    },
  });
  const file = positionals[0];
  if (!file) {
    throw new UsageError(
      'usage: npx svc-stt transcribe FILE [--model PATH|NAME] [--language CODE|auto] [--format text|json|verbose_json] ' +
        '[--no-vad] [--diarize [--max-speakers 1-4]] [--words [--dtw]] [--patterns EXPRS] [--smart-format] [--redact POLICIES]',
    );
  }
  const format = values.format as OutputFormat;
  if (!OUTPUT_FORMATS.includes(format)) throw new UsageError(`--format must be one of ${OUTPUT_FORMATS.join(', ')}`);
  const threads = optionalInteger(values.threads, '--threads', 1, 256);
  const beamSize = optionalInteger(values['beam-size'], '--beam-size', 1, 16);
  const maxTokens = optionalInteger(values['max-tokens'], '--max-tokens', 0, 1 << 20);
  const maxSpeakers = optionalInteger(values['max-speakers'], '--max-speakers', 1, DIARIZER_MAX_VOICES);
  if (maxSpeakers !== undefined && !values.diarize) throw new UsageError('--max-speakers needs --diarize');
  if (values.dtw && !values.words && !values.diarize) throw new UsageError('--dtw times words: it needs --words or --diarize');
  const patterns = parsePatterns(values.patterns);
  const redact = values.redact === undefined ? null : values.redact.split(',').map((name) => name.trim());
  if (redact) {
    try {
      resolvePolicies(redact);
    } catch (error) {
      if (error instanceof RedactionPolicyError) throw new UsageError(`--redact: ${KNOWN_POLICIES}`);
      throw error;
    }
  }
  const modelArg = modelArgument(values.model);
  // Before the audio is decoded: a missing model should not cost a long file's decoding first.
  const model = await existingModelFile(modelArg.value, modelArg.from);

  const pcm = await decodeAudio(file, { maxSeconds: MAX_LOCAL_SECONDS, timeoutMs: 10 * 60_000 });
  const vad = !values['no-vad'];
  const engine = await Engine.open({
    model,
    workers: 1,
    threadsPerWorker: threads,
    wordAlignment: values.dtw ? 'dtw' : 'tokens',
    ...(vad ? { vadModel: vadModelPath() } : {}),
  });
  try {
    const outcome = await transcribePcm(engine, pcm, {
      language: values.language,
      vad,
      diarize: values.diarize,
      wordTimestamps: values.words,
      patterns,
      clinicalText: { smartFormat: values['smart-format'], redact },
      ...(maxSpeakers !== undefined ? { maxSpeakers } : {}),
      decoding: {
        ...(beamSize ? { beamSize } : {}),
        ...(maxTokens !== undefined ? { maxTokens } : {}),
        ...(values['no-fallback'] ? { temperatureFallback: false } : {}),
      },
    });
    process.stdout.write(formatTranscript(outcome, format));
  } finally {
    await engine.close();
  }
}
