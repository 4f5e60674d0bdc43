// Every subcommand a command dispatches is in its help: `svc-stt COMMAND --help` names each entry of
// the table the command dispatches from (src/cli/subcommands.ts), nested ones (`webhooks secret
// revoke`) included, so a subcommand cannot be added without the help listing it.
import t from 'tap';

import { CONSOLE_USERS_SUBCOMMANDS } from '../../src/cli/console-users-command.js';
import { DICTIONARY_SUBCOMMANDS } from '../../src/cli/dictionary-command.js';
import { KEYS_SUBCOMMANDS, runKeysCommand } from '../../src/cli/keys-command.js';
import { main } from '../../src/cli/main.js';
import { MASTER_KEY_SUBCOMMANDS } from '../../src/cli/master-key-command.js';
import { MODELS_SUBCOMMANDS } from '../../src/cli/models-command.js';
import { PLANS_SUBCOMMANDS } from '../../src/cli/plans-command.js';
import type { Subcommands } from '../../src/cli/subcommands.js';
import { TENANTS_SUBCOMMANDS } from '../../src/cli/tenants-command.js';
import { WEBHOOK_SECRET_SUBCOMMANDS } from '../../src/cli/webhook-secret-command.js';
import { WEBHOOKS_SUBCOMMANDS } from '../../src/cli/webhooks-command.js';
import { capturedStdout } from '../helpers/captured-stdout.js';

/** Each command with subcommands, and the tables of those that have their own. */
const COMMANDS: Record<string, { table: Subcommands; nested?: Record<string, Subcommands> }> = {
  models: { table: MODELS_SUBCOMMANDS },
  keys: { table: KEYS_SUBCOMMANDS },
  plans: { table: PLANS_SUBCOMMANDS },
  dictionary: { table: DICTIONARY_SUBCOMMANDS },
  webhooks: { table: WEBHOOKS_SUBCOMMANDS, nested: { secret: WEBHOOK_SECRET_SUBCOMMANDS } },
  'console-users': { table: CONSOLE_USERS_SUBCOMMANDS },
  tenants: { table: TENANTS_SUBCOMMANDS },
  'master-key': { table: MASTER_KEY_SUBCOMMANDS },
};

/**
 * Whether a help line `svc-stt WORDS...` spells `path`: its words, up to the first option or
 * placeholder, each a `|`-separated list of alternatives (`create|rotate|list`).
 */
function helpNames(help: string, path: string[]): boolean {
  return help.split('\n').some((line) => {
    const words = /svc-stt (.*)$/.exec(line)?.[1].split(/\s+/) ?? [];
    return path.every((part, i) => words[i] !== undefined && words[i].split('|').includes(part));
  });
}

for (const [command, { table, nested }] of Object.entries(COMMANDS)) {
  t.test(`svc-stt ${command} --help lists every subcommand it dispatches`, async (t) => {
    const help = await capturedStdout(() => main([command, '--help']));
    const paths = Object.keys(table).flatMap((name) => (nested?.[name] ? Object.keys(nested[name]).map((inner) => [name, inner]) : [[name]]));
    t.ok(paths.length > 0, `${command}: ${paths.length} subcommand(s)`);
    for (const path of paths) t.ok(helpNames(help, [command, ...path]), `svc-stt ${[command, ...path].join(' ')} is in the help`);
  });
}

t.test('an unknown or inherited name is refused with the usage, never dispatched', async (t) => {
  for (const name of ['constructor', 'toString', '__proto__', 'nope']) {
    await t.rejects(runKeysCommand([name], { write: () => true }), { exitCode: 2, message: /^usage: npx svc-stt keys create/ }, name);
  }
});
