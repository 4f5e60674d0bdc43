// svc-stt format: smart_format for text already written. UTF-8 text on stdin, one JSON object
// {"text": "<formatted>"} out; with --json, a verbose_json transcript in and the same transcript out
// with its text, segments and words formatted (words keep their times). The library's formatText and
// formatTranscript do the work. Refusals name the field and never print the input back: it is a
// patient's record.
import { parseArgs } from 'node:util';

import { formatTranscript } from '../clinical-text/format-transcript.js';
import { FormatOptionError, formatText, languageFamily } from '../clinical-text/smart-format.js';
import { readTranscript } from '../clinical-text/transcript-shape.js';
import type { CommandOutput } from './command-output.js';
import { UsageError } from './usage-error.js';

const USAGE = 'usage: npx svc-stt format [--language L] [--json]   (text on stdin; --json: a verbose_json transcript)';

/** The input is not what the command reads (exit 1, as other refused input). */
class FormatInputError extends Error {
  readonly exitCode = 1;
}

export async function runFormatCommand(
  argv: string[],
  out: CommandOutput = process.stdout,
  input: AsyncIterable<Buffer | string> = process.stdin,
): Promise<void> {
  const { language, json } = parse(argv);
  if (language !== undefined) checkLanguage(language);
  const text = await readUtf8(input);
  if (!json) {
    // The shell's final newline ends the input; it is not part of the text.
    const formatted = formatText(text.replace(/\r?\n$/, ''), { language: language ?? 'en' });
    out.write(`${JSON.stringify({ text: formatted.text })}\n`);
    return;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the input.
    throw new FormatInputError('stdin is not JSON: --json reads a verbose_json transcript');
  }
  try {
    const transcript = readTranscript(value);
    out.write(`${JSON.stringify(formatTranscript(transcript, { language: language ?? transcript.language ?? 'en' }))}\n`);
  } catch (error) {
    if (error instanceof FormatOptionError)
      throw new FormatInputError(`the transcript's ${error.message}${error.field === 'language' ? ' (or pass --language)' : ''}`);
    throw error;
  }
}

function parse(argv: string[]): { language?: string; json: boolean } {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { language: { type: 'string' }, json: { type: 'boolean', default: false } } });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
  return { language: parsed.values.language, json: parsed.values.json };
}

function checkLanguage(language: string): void {
  try {
    languageFamily(language);
  } catch (error) {
    if (error instanceof FormatOptionError) throw new UsageError(`--${error.message}\n${USAGE}`);
    throw error;
  }
}

async function readUtf8(input: AsyncIterable<Buffer | string>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new FormatInputError('stdin is not UTF-8 text');
  }
}
