// `svc-stt keys revoke ID --json` as an operator runs it: a separate process on the server's data
// folder, while the server keeps running.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import { CLI_ARGS } from './serve-process.js';

const exec = promisify(execFile);

export interface RevokeOutput {
  id: string;
  revoked_at: string | null;
  closed_upload_slots: number;
  deleted_uploads: number;
  cancelled_webhook_events: number;
  [field: string]: unknown;
}

export async function revokeKeyWithCli(dataDir: string, keyId: string): Promise<RevokeOutput> {
  const { stdout } = await exec(process.execPath, [...CLI_ARGS, 'keys', 'revoke', keyId, '--json'], {
    env: { ...process.env, SVC_DATA_DIR: dataDir },
  });
  return JSON.parse(stdout) as RevokeOutput;
}
