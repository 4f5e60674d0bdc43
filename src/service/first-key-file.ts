// The API key a fresh install creates, handed over through a file in the data folder (mode 0600),
// never through the logs: stderr and stdout of a service usually end up in a journal or a log
// collector that more people can read than the data folder. The file is written before the key is
// committed (see start-service.ts), so a key exists only if its file does.
import { randomBytes } from 'node:crypto';
import { chmodSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const FIRST_KEY_FILE = 'first-api-key';

export function firstKeyPath(dataDir: string): string {
  return join(dataDir, FIRST_KEY_FILE);
}

/** Writes the key (one line) to the data folder's first-key file, atomically, readable only by its owner. */
export function writeFirstKeyFile(dataDir: string, key: string): string {
  const path = firstKeyPath(dataDir);
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    writeFileSync(temp, `${key}\n`, { mode: 0o600, flag: 'wx' });
    // The umask may have narrowed the mode further, never widened it; make it exactly 0600.
    chmodSync(temp, 0o600);
    // Replaces a file left by an earlier install whose database was removed.
    renameSync(temp, path);
  } finally {
    rmSync(temp, { force: true });
  }
  return path;
}
