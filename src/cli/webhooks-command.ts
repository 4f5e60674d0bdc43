// svc-stt webhooks <area>: routes to one file per area (signing secrets, deliveries), so adding an
// area is one case here.
import type { CommandOutput } from './command-output.js';
import { dispatch, type Subcommands } from './subcommands.js';
import { DELIVERIES_USAGE, runWebhookDeliveriesCommand } from './webhook-deliveries-command.js';
import { runWebhookSecretCommand, SECRET_USAGE } from './webhook-secret-command.js';

const USAGE = `${SECRET_USAGE}\n${DELIVERIES_USAGE.replace(/^usage: /, '       ')}`;

/** `out` is where results go (stdout unless a test captures them); errors are thrown. */
export async function runWebhooksCommand(argv: string[], out: CommandOutput = process.stdout): Promise<void> {
  return dispatch(WEBHOOKS_SUBCOMMANDS, argv, out, USAGE);
}

export const WEBHOOKS_SUBCOMMANDS: Subcommands = { secret: runWebhookSecretCommand, deliveries: runWebhookDeliveriesCommand };
