// svc-stt dictionary set | show: a key's stored vocabulary for one language family. Requests merge
// their own terms above it (unless they send dictionary=false).
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

import { KeyStoreError } from '../store/key-store-error.js';
import { validateLanguageFamily } from '../store/key-validation.js';
import { withKeyStore } from './admin-stores.js';
import type { CommandOutput } from './command-output.js';
import { dispatch, type Subcommands } from './subcommands.js';
import { UsageError } from './usage-error.js';

const USAGE = `usage: npx svc-stt dictionary set --key ID --language FAMILY FILE   (one term per line; FILE - reads stdin)
       npx svc-stt dictionary show --key ID --language FAMILY [--json]`;

/** `out` is where results go (stdout unless a test captures them); errors are thrown. */
export async function runDictionaryCommand(argv: string[], out: CommandOutput = process.stdout): Promise<void> {
  return dispatch(DICTIONARY_SUBCOMMANDS, argv, out, USAGE);
}

export const DICTIONARY_SUBCOMMANDS: Subcommands = { set: setDictionary, show: showDictionary };

async function setDictionary(argv: string[], out: CommandOutput): Promise<void> {
  const { key, language, positionals } = parse(argv);
  if (positionals.length !== 1) throw new UsageError(`dictionary set takes one FILE\n${USAGE}`);
  const file = positionals[0];
  const text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  const stored = await withKeyStore(async (keys) => {
    await keys.setDictionary(key, language, lines);
    return keys.getDictionary(key, language);
  });
  const dropped = lines.length - stored.length;
  out.write(`stored ${stored.length} terms for ${key} (${language})${dropped ? `; ${dropped} duplicate lines skipped` : ''}\n`);
}

async function showDictionary(argv: string[], out: CommandOutput): Promise<void> {
  const { key, language, json, positionals } = parse(argv);
  if (positionals.length > 0) throw new UsageError(`dictionary show takes no FILE\n${USAGE}`);
  const terms = await withKeyStore(async (keys) => {
    validateLanguageFamily(language);
    if (!(await keys.get(key))) throw new KeyStoreError('not_found', `no API key with id '${key}'`);
    return keys.getDictionary(key, language);
  });
  out.write(json ? `${JSON.stringify(terms)}\n` : terms.map((term) => `${term}\n`).join(''));
}

function parse(argv: string[]) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { key: { type: 'string' }, language: { type: 'string' }, json: { type: 'boolean', default: false } },
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${USAGE}`);
  }
  const { key, language, json } = parsed.values;
  if (!key || !language) throw new UsageError(`--key and --language are required\n${USAGE}`);
  // The id, not the bearer secret: refuse a pasted secret without printing it back.
  if (key.startsWith('svc_')) throw new UsageError('--key takes the key id (key_...), not the secret key');
  return { key, language, json: json ?? false, positionals: parsed.positionals };
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
