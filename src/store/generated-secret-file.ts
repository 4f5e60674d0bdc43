// A server secret kept in the data folder: generated once (random bytes, base64, mode 0600) and read
// back on every start. Created atomically: processes starting together on a fresh folder (the server
// and an admin command, say) agree on one secret, because link() refuses to replace an existing file.
import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

import { makePrivateDir } from './private-mode.js';

/**
 * The secret at `path`, created with `bytes` random bytes if the file does not exist. `check` sees
 * the decoded bytes of an existing file and throws when they are damaged (a damaged secret is never
 * replaced: what it protects would become unreadable or invalid).
 */
export function loadOrCreateSecretFile(path: string, bytes: number, check: (secret: Buffer) => void): Buffer {
  try {
    return read(path, check);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  makePrivateDir(dirname(path));
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(temp, randomBytes(bytes).toString('base64'), { mode: 0o600, flag: 'wx' });
  // The umask may have narrowed the mode further, never widened it; make it exactly 0600.
  chmodSync(temp, 0o600);
  try {
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(temp, { force: true });
  }
  return read(path, check);
}

function read(path: string, check: (secret: Buffer) => void): Buffer {
  const secret = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64');
  check(secret);
  return secret;
}
