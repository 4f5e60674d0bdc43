// svc-stt webhooks secret create | rotate | revoke | list --key KEY_ID: a key's webhook signing secrets.
// A new secret is printed once (docs/DESIGN.md "Interfaces that scripts rely on": `create --json` prints exactly {"secret","version"});
// listings show versions and their states, never secret material.
import { parseArgs } from 'node:util';

import type { WebhookSecretSummary } from '../store/webhook-secret-store.js';
import { withWebhookSecretStore } from './admin-stores.js';
import type { CommandOutput } from './command-output.js';
import { dispatch, type Subcommands } from './subcommands.js';
import { UsageError } from './usage-error.js';

export const SECRET_USAGE = `usage: npx svc-stt webhooks secret create --key KEY_ID [--json]
       npx svc-stt webhooks secret rotate --key KEY_ID [--json]
       npx svc-stt webhooks secret revoke --key KEY_ID [--json]
       npx svc-stt webhooks secret list --key KEY_ID [--json]`;

export async function runWebhookSecretCommand(argv: string[], out: CommandOutput = process.stdout): Promise<void> {
  return dispatch(WEBHOOK_SECRET_SUBCOMMANDS, argv, out, SECRET_USAGE);
}

export const WEBHOOK_SECRET_SUBCOMMANDS: Subcommands = { create: createSecret, rotate: rotateSecret, revoke: revokeSecret, list: listSecrets };

async function createSecret(argv: string[], out: CommandOutput): Promise<void> {
  const { key, json } = parse(argv);
  const created = await withWebhookSecretStore((secrets) => secrets.create(key, Date.now()));
  if (json) {
    out.write(`${JSON.stringify({ secret: created.secret, version: created.version })}\n`);
    return;
  }
  out.write(
    `Created webhook signing secret version ${created.version} for ${key}.\n` +
      `The secret is shown only this once; give it to the webhook receiver now:\n\n  ${created.secret}\n\n`,
  );
}

async function rotateSecret(argv: string[], out: CommandOutput): Promise<void> {
  const { key, json } = parse(argv);
  const { rotated, previous } = await withWebhookSecretStore(async (secrets) => {
    const now = Date.now();
    const rotated = await secrets.rotate(key, now);
    const previous = (await secrets.list(key, now)).find((summary) => summary.version === rotated.version - 1);
    return { rotated, previous };
  });
  if (json) {
    out.write(`${JSON.stringify({ secret: rotated.secret, version: rotated.version })}\n`);
    return;
  }
  const overlap = previous?.usableUntil ? `; version ${previous.version} keeps signing until ${previous.usableUntil}` : '';
  out.write(
    `Rotated the webhook signing secret of ${key}: version ${rotated.version} is now active${overlap}.\n` +
      `The new secret is shown only this once; give it to the webhook receiver now:\n\n  ${rotated.secret}\n\n`,
  );
}

/** Every version that still signs stops at once (a leaked secret), as the console's Revoke does. */
async function revokeSecret(argv: string[], out: CommandOutput): Promise<void> {
  const { key, json } = parse(argv);
  const versions = await withWebhookSecretStore((secrets) => secrets.revoke(key, Date.now()));
  if (json) {
    out.write(`${JSON.stringify({ revoked_versions: versions })}\n`);
    return;
  }
  out.write(
    `Revoked the webhook signing secret of ${key}: version ${versions.join(', ')} no longer signs.\n` +
      `Requests of the key with a webhook_url are refused until \`npx svc-stt webhooks secret create --key ${key}\` makes a new one.\n`,
  );
}

async function listSecrets(argv: string[], out: CommandOutput): Promise<void> {
  const { key, json } = parse(argv);
  const summaries = await withWebhookSecretStore((secrets) => secrets.list(key, Date.now()));
  out.write(json ? `${JSON.stringify(summaries.map(secretListing))}\n` : secretTable(key, summaries));
}

/** snake_case like the other admin listings (`keys list --json`, `webhooks deliveries --json`). */
function secretListing(summary: WebhookSecretSummary) {
  return { version: summary.version, state: summary.state, created_at: summary.createdAt, usable_until: summary.usableUntil, revoked_at: summary.revokedAt };
}

function secretTable(key: string, summaries: readonly WebhookSecretSummary[]): string {
  if (summaries.length === 0) return `no webhook signing secrets for ${key} (create one with \`npx svc-stt webhooks secret create --key ${key}\`)\n`;
  const rows = summaries.map((s) => [String(s.version), s.state, s.createdAt, s.usableUntil ?? '-', s.revokedAt ?? '-']);
  const header = ['VERSION', 'STATE', 'CREATED', 'SIGNS UNTIL', 'REVOKED'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]))
      .join('  ')
      .trimEnd();
  return `${[header, ...rows].map(line).join('\n')}\n`;
}

function parse(argv: string[]): { key: string; json: boolean } {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { key: { type: 'string' }, json: { type: 'boolean', default: false } }, strict: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${SECRET_USAGE}`);
  }
  const key = parsed.values.key;
  if (!key) throw new UsageError(`--key KEY_ID is required\n${SECRET_USAGE}`);
  return { key, json: parsed.values.json ?? false };
}
