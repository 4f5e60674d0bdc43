// A small tmpfs of a test's own (the disk-full fault case): mounted on a fresh folder, unmounted and
// removed by `unmount()` whatever happened (a lazy unmount if something still holds it open).
// Mounting needs root or CAP_SYS_ADMIN. Where the machine cannot, SVC_TEST_NO_MOUNT says why and the
// tests that need a mount skip with that reason; anywhere else a failed mount fails them, saying what
// it needs, so a CI that lost the privilege does not pass by skipping silently.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Set (to the reason) where the machine cannot mount: tests that need a mount skip, saying so. */
export const NO_MOUNT_ENV = 'SVC_TEST_NO_MOUNT';

/** The skip reason where SVC_TEST_NO_MOUNT is set, else false (the test runs, and fails if it cannot mount). */
export function mountSkipReason(): string | false {
  const reason = process.env[NO_MOUNT_ENV];
  return reason ? `${NO_MOUNT_ENV}: ${reason}` : false;
}

export interface TmpfsMount {
  dir: string;
  unmount(): Promise<void>;
}

export async function mountTmpfs(sizeMb: number): Promise<TmpfsMount> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-tmpfs-'));
  try {
    await run('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0700`, 'tmpfs', dir]);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    const why = ((error as { stderr?: string }).stderr ?? (error as Error).message).trim();
    throw new Error(
      `mounting a ${sizeMb} MiB tmpfs failed (it needs root or CAP_SYS_ADMIN): ${why}. Where the machine cannot mount, set ${NO_MOUNT_ENV} to the reason.`,
      { cause: error },
    );
  }
  let mounted = true;
  return {
    dir,
    unmount: async () => {
      if (mounted) {
        await run('umount', [dir]).catch(() => run('umount', ['-l', dir]));
        mounted = false;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
