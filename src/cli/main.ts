// svc-stt command dispatcher. Each command lives in its own file; this one only routes.
// Commands are imported when chosen, so `keys list` loads neither the native addon nor the server.
import { LONGEST_ROTATION_OVERLAP_HOURS } from '../domain/rotation-overlap.js';

const USAGE = `svc-stt — self-hosted medical speech-to-text

Usage:
  npx svc-stt serve [--role api|worker|all]   (configured by SVC_* environment variables; see docs/OPERATIONS.md)
  npx svc-stt transcribe FILE [--model PATH|NAME] [--language CODE|auto] [--format text|json|verbose_json]
                              [--threads N] [--beam-size N] [--max-tokens N] [--no-fallback] [--no-vad]
                              [--diarize [--max-speakers 1-4]] [--words] [--dtw] [--patterns EXPRS]
                              [--smart-format] [--redact POLICIES]
  npx svc-stt bench [--model PATH|NAME] [--audio FILE ...] [--seconds N] [--workers N] [--threads N]
                    [--calls N] [--max-tokens N] [--json]
                              (speed on this machine; without --audio it speaks its own audio with espeak-ng)
  npx svc-stt format [--language L] [--json]   (UTF-8 text on stdin → {"text": ...} with clinical quantities written
                              as a chart writes them; --json: a verbose_json transcript in and out)
  npx svc-stt models list
  npx svc-stt models download NAME [--dir DIR] [--no-verify]
  npx svc-stt models make-test --arch micro|tiny|base|small --seed N --out FILE
  npx svc-stt keys create [--json] [--tenant T] [--plan builder|payg|enterprise] [--entitlement E ...]
                          [--no-language-detection] [--default-language L] [--retention-hours N] [--rate-limit N]
                          [--smart-format on|off] [--redact-always POLICIES]
  npx svc-stt keys list [--json]
  npx svc-stt keys revoke ID [--json]
  npx svc-stt keys rotate ID --overlap-hours H [--json]   (a new key shown once; the old one revoked after H hours,
                          0 to ${LONGEST_ROTATION_OVERLAP_HOURS}; 0: now)
  npx svc-stt keys update ID [--json] [--plan P] [--billing active|paused] [--entitlement E ...|none]
                          [--retention-hours N] [--default-language L|none] [--rate-limit N|none]
                          [--smart-format on|off] [--redact-always POLICIES|none]
                          [--batch-hours H|unlimited] [--realtime-hours H|unlimited] [--batch-price P|none]
                          [--realtime-price P|none] [--spend-cap C|none] [--add-credit C] [--clear-terms]
  npx svc-stt plans list [--json]
  npx svc-stt plans update PLAN [--json] [--batch-hours H|unlimited] [--realtime-hours H|unlimited]
                          [--batch-price P|none] [--realtime-price P|none] [--spend-cap C|none]
  npx svc-stt plans reset PLAN
  npx svc-stt plans start-day DAY          (billing periods start on this day of the month, 1-28, UTC)
  npx svc-stt usage [--tenant T] [--month YYYY-MM] [--json|--csv]
  npx svc-stt dictionary set --key ID --language FAMILY FILE     (one term per line)
  npx svc-stt dictionary show --key ID --language FAMILY [--json]
  npx svc-stt webhooks secret create|rotate|revoke|list --key ID [--json]    (a new secret is shown once; revoke: at once)
  npx svc-stt webhooks deliveries --job ID [--json]
  npx svc-stt console-users invite --tenant T --email E [--json]   (the developer console: a one-time link, 24 h)
  npx svc-stt console-users list --tenant T [--json]
  npx svc-stt console-users require-totp --tenant T [--off] [--json]   (TOTP a must for the tenant's console accounts)
  npx svc-stt console-users reset-totp --email E   (turns an account's TOTP off: a lost phone)
  npx svc-stt tenants erase TENANT_ID [--json]   (data keys destroyed first, then every row and blob of the tenant;
                              export its usage first: docs/OPERATIONS.md "Erasing a tenant")
  npx svc-stt tenants rotate-key TENANT_ID [--json]   (a new data key version seals the tenant's new content;
                              older versions still open what they sealed)
  npx svc-stt master-key rotate [--batch N] [--json]   (every data key re-wrapped and secret sealed again under the active
                              master key, SVC_KMS_KEY_ID else SVC_WEBHOOK_MASTER_KEY; says when a previous key is unused)
  npx svc-stt redact [--policies LIST] [--substitution entity_name|hash] [--json]   (PHI redaction of a transcript on stdin:
                     text in, {"text","entities":[{type,start,end}]} out; --json: verbose_json in and out, with redactions
                     in seconds; LIST: classes or groups, comma-separated, default identifiers; see docs/API.md "Redaction")

Environment: SVC_MODEL (default model file), SVC_MODELS_DIR (default ./models),
             SVC_DATA_DIR (database for keys, dictionaries and webhook secrets; default ./data),
             SVC_WEBHOOK_MASTER_KEY (the master key: encrypts webhook secrets, wraps tenants' data keys;
             default <data dir>/webhook-master.key), SVC_PREVIOUS_MASTER_KEYS (keys being rotated away from).
`;

const COMMANDS = [
  'serve',
  'transcribe',
  'bench',
  'format',
  'models',
  'keys',
  'plans',
  'usage',
  'dictionary',
  'webhooks',
  'console-users',
  'tenants',
  'master-key',
  'redact',
];

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  // `svc-stt COMMAND --help` and `svc-stt help COMMAND`: that command's lines of the usage.
  const helpFor = COMMANDS.includes(command) && asksForHelp(rest) ? command : command === 'help' && COMMANDS.includes(rest[0]) ? rest[0] : undefined;
  if (helpFor) {
    process.stdout.write(usageOf(helpFor));
    return;
  }
  try {
    switch (command) {
      case 'serve':
        await (await import('./serve-command.js')).runServeCommand(rest);
        break;
      case 'transcribe':
        await (await import('./transcribe-command.js')).runTranscribeCommand(rest);
        break;
      case 'bench':
        await (await import('./bench-command.js')).runBenchCommand(rest);
        break;
      case 'format':
        await (await import('./format-command.js')).runFormatCommand(rest);
        break;
      case 'models':
        await (await import('./models-command.js')).runModelsCommand(rest);
        break;
      case 'keys':
        await (await import('./keys-command.js')).runKeysCommand(rest);
        break;
      case 'plans':
        await (await import('./plans-command.js')).runPlansCommand(rest);
        break;
      case 'usage':
        await (await import('./usage-command.js')).runUsageCommand(rest);
        break;
      case 'dictionary':
        await (await import('./dictionary-command.js')).runDictionaryCommand(rest);
        break;
      case 'webhooks':
        await (await import('./webhooks-command.js')).runWebhooksCommand(rest);
        break;
      case 'console-users':
        await (await import('./console-users-command.js')).runConsoleUsersCommand(rest);
        break;
      case 'tenants':
        await (await import('./tenants-command.js')).runTenantsCommand(rest);
        break;
      case 'master-key':
        await (await import('./master-key-command.js')).runMasterKeyCommand(rest);
        break;
      case 'redact':
        await (await import('./redact-command.js')).runRedactCommand(rest);
        break;
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(USAGE);
        break;
      default:
        process.stderr.write(`svc-stt: unknown command '${command}'\n\n${USAGE}`);
        process.exitCode = 2;
    }
  } catch (error) {
    process.stderr.write(`svc-stt: ${(error as Error).message}\n`);
    process.exitCode = exitCodeOf(error);
  }
}

/** 2 for a mistake in the command line (ours, or an unknown or malformed option found by parseArgs), else 1. */
function exitCodeOf(error: unknown): number {
  const { exitCode, code } = error as { exitCode?: number; code?: unknown };
  if (exitCode !== undefined) return exitCode;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_') ? 2 : 1;
}

function asksForHelp(args: string[]): boolean {
  const options = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  return options.includes('--help') || options.includes('-h');
}

/** The lines of USAGE for one command: each `svc-stt COMMAND ...` line with the lines continuing it. */
function usageOf(command: string): string {
  const lines: string[] = [];
  let inside = false;
  for (const line of USAGE.split('\n')) {
    if (line.startsWith('  npx svc-stt ')) inside = line.startsWith(`  npx svc-stt ${command} `) || line === `  npx svc-stt ${command}`;
    else if (!/^ {4,}\S/.test(line)) inside = false;
    if (inside) lines.push(line);
  }
  return `Usage:\n${lines.join('\n')}\n`;
}
