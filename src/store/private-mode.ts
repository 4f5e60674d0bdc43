// The data folder holds patient data (recordings, transcripts, voice profiles) and the service's
// secrets: whatever the service creates under it is its owner's alone. The modes are given at
// creation, where the umask can only remove bits from them, never add any: 0600 and 0700 whatever
// the umask. A file or folder that existed before keeps its mode (data-folder-modes.ts warns of it).
import { mkdirSync } from 'node:fs';

/** Read and write for the owner only. */
export const PRIVATE_FILE_MODE = 0o600;
/** Enter, list and write for the owner only. */
export const PRIVATE_DIR_MODE = 0o700;

/** Creates `path` and any missing parents as owner-only folders (an existing one is left as it is). */
export function makePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE });
}
