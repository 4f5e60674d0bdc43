// svc-stt redact: PHI redaction of an existing transcript, read on stdin. Plain: UTF-8 text in, one JSON
// object {text, entities: [{type, start, end}]} out, offsets into the input (JavaScript string indices).
// --json: a verbose_json transcript in, the same transcript redacted out, with `redactions` (seconds) and
// `redaction_counts`. No error says anything of the input: it is what is being kept private.
import { parseArgs } from 'node:util';

import { redactText } from '../clinical-text/redact-text.js';
import { redactTranscript, type VerboseTranscriptLike } from '../clinical-text/redact-transcript.js';
import { isSubstitution, RedactionPolicyError, resolvePolicies, SUBSTITUTIONS } from '../clinical-text/redaction-classes.js';
import type { CommandOutput } from './command-output.js';
import { UsageError } from './usage-error.js';

const USAGE = `usage: npx svc-stt redact [--policies LIST] [--substitution entity_name|hash] [--json] < FILE
  LIST: comma-separated classes or groups (identifiers, the default; health; all)`;

export interface RedactInput {
  /** The whole of standard input, as UTF-8. */
  read(): Promise<string>;
}

const stdin: RedactInput = {
  async read() {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
};

export async function runRedactCommand(argv: string[], out: CommandOutput = process.stdout, input: RedactInput = stdin): Promise<void> {
  const { policies, substitution, json } = parse(argv);
  const text = await input.read();
  if (!json) {
    out.write(`${JSON.stringify(redactText(text, { policies, substitution }))}\n`);
    return;
  }
  const transcript = parseTranscript(text);
  const { transcript: redacted, redactions, counts } = redactTranscript(transcript, { policies, substitution });
  out.write(`${JSON.stringify({ ...redacted, redactions, redaction_counts: counts })}\n`);
}

function parse(argv: string[]) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { policies: { type: 'string' }, substitution: { type: 'string', default: 'entity_name' }, json: { type: 'boolean', default: false } },
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
  const { substitution, json } = parsed.values;
  const policies = parsed.values.policies
    ?.split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (!isSubstitution(substitution)) throw new UsageError(`--substitution is one of ${SUBSTITUTIONS.join(', ')}\n${USAGE}`);
  try {
    resolvePolicies(policies);
  } catch (error) {
    if (error instanceof RedactionPolicyError) throw new UsageError(`--policies: ${error.message}`);
    throw error;
  }
  return { policies, substitution, json };
}

/** The transcript on stdin; JSON.parse's own message would quote the input, so it is not passed on. */
function parseTranscript(text: string): VerboseTranscriptLike {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('--json: standard input is not JSON (a verbose_json transcript)');
  }
  const t = value as VerboseTranscriptLike;
  const wellFormed =
    typeof t === 'object' &&
    t !== null &&
    typeof t.text === 'string' &&
    (t.segments === undefined || (Array.isArray(t.segments) && t.segments.every((s) => typeof s?.text === 'string'))) &&
    (t.words === undefined || (Array.isArray(t.words) && t.words.every((w) => typeof w?.word === 'string')));
  if (!wellFormed) throw new Error('--json: standard input is not a verbose_json transcript (text, segments[].text, words[].word)');
  return t;
}
