// svc-stt master-key rotate: moves every data key and secret from the previous master keys
// (SVC_PREVIOUS_MASTER_KEYS, SVC_KMS_PREVIOUS_KEY_IDS) to the active one (SVC_KMS_KEY_ID, else
// SVC_WEBHOOK_MASTER_KEY), with the service running, and
// says which old keys are no longer needed (src/application/rotate-master-key.ts says how).
import { DEFAULT_REWRAP_BATCH, rotateMasterKey } from '../application/rotate-master-key.js';
import { withMasterKeyRotationStores } from './admin-stores.js';
import type { CommandOutput } from './command-output.js';
import { optionalInteger } from './numeric-options.js';
import { parseCommandArgs } from './parse-command-args.js';
import { dispatch, type Subcommands } from './subcommands.js';
import { UsageError } from './usage-error.js';

const USAGE = `usage: npx svc-stt master-key rotate [--batch N] [--json]   (re-wraps every data key under SVC_KMS_KEY_ID, else
                            SVC_WEBHOOK_MASTER_KEY, reseals secrets; old keys stay in SVC_PREVIOUS_MASTER_KEYS or
                            SVC_KMS_PREVIOUS_KEY_IDS until it says they are unused)`;

export async function runMasterKeyCommand(argv: string[], out: CommandOutput = process.stdout): Promise<void> {
  return dispatch(MASTER_KEY_SUBCOMMANDS, argv, out, USAGE);
}

async function rotate(argv: string[], out: CommandOutput): Promise<void> {
  const { values, positionals } = parseCommandArgs(argv, USAGE, { batch: { type: 'string' }, json: { type: 'boolean', default: false } });
  if (positionals.length > 0) throw new UsageError(`master-key rotate takes no arguments\n${USAGE}`);
  const batch = optionalInteger(values.batch, '--batch', 1, 10_000) ?? DEFAULT_REWRAP_BATCH;
  // Progress on stderr with --json, so that stdout stays one JSON line.
  const progress = values.json ? process.stderr : out;
  const rotation = await withMasterKeyRotationStores((stores, keyIds) =>
    rotateMasterKey(stores, keyIds, { batch, onProgress: (n) => progress.write(`re-wrapped ${n} data key(s)\n`) }).then((done) => ({ ...done, keyIds })),
  );
  const { dataKeysRewrapped, webhookSecretsResealed, totpSecretsResealed, inUse, retired, keyIds } = rotation;
  if (values.json) {
    const json = {
      active: keyIds.active,
      data_keys_rewrapped: dataKeysRewrapped,
      webhook_secrets_resealed: webhookSecretsResealed,
      totp_secrets_resealed: totpSecretsResealed,
      in_use: inUse,
      retired,
    };
    out.write(`${JSON.stringify(json)}\n`);
    return;
  }
  const stillUsed = inUse.filter((id) => id !== keyIds.active);
  out.write(
    `master key ${keyIds.active} is active: ${dataKeysRewrapped} data key(s) re-wrapped under it, ` +
      `${webhookSecretsResealed} webhook secret(s) and ${totpSecretsResealed} TOTP secret(s) sealed again\n` +
      retired.map((id) => `${id} is no longer used: remove it from ${previousSettingOf(id)} in every process\n`).join('') +
      stillUsed.map((id) => `${id} still wraps data keys (a process without the new active key?): run this again\n`).join(''),
  );
}

/** Where an old key is given: KMS key ids (`kms:...`) and local keys have their own settings. */
function previousSettingOf(keyId: string): string {
  return keyId.startsWith('kms:') ? 'SVC_KMS_PREVIOUS_KEY_IDS' : 'SVC_PREVIOUS_MASTER_KEYS';
}

export const MASTER_KEY_SUBCOMMANDS: Subcommands = { rotate };
