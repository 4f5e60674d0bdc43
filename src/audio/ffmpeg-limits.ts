/**
 * Resource limits for every ffmpeg/ffprobe subprocess. Uploads are hostile until decoded: a crafted
 * header can ask a demuxer for huge tables or a decoder for huge frames. The limits below make such a
 * file fail inside its own process (as undecodable audio) instead of pushing the host into swap or
 * the OOM killer, which might pick the server.
 */

/**
 * Address-space cap (RLIMIT_AS) for the subprocess. Decoding a 2-hour MP3 peaks at about 285 MiB of
 * virtual memory with the flags below (most of it shared-library mappings), so 2 GiB leaves room for
 * builds that link more libraries while still bounding a malicious allocation pattern.
 */
export const FFMPEG_ADDRESS_SPACE_BYTES = 2 * 1024 ** 3;

/**
 * Largest single allocation ffmpeg may make (`-max_alloc`). Legitimate audio work allocates frames and
 * sample tables of a few MiB at most; a 100 MiB request means a header is lying.
 */
export const FFMPEG_MAX_SINGLE_ALLOCATION_BYTES = 128 * 1024 ** 2;

/**
 * One thread per subprocess. Audio decoders gain nothing from ffmpeg's frame/slice threading, while
 * the default ("auto") sizes thread pools to the host's core count: that competes with whisper for
 * the cores it is using, and every extra thread stack and malloc arena counts against the
 * address-space cap above, which would make the cap's effect depend on the machine.
 */
export const FFMPEG_THREAD_ARGS: readonly string[] = ['-threads', '1'];

/** Global options shared by ffmpeg and ffprobe. */
export const FFMPEG_SAFETY_ARGS: readonly string[] = ['-max_alloc', String(FFMPEG_MAX_SINGLE_ALLOCATION_BYTES)];

/** Exit codes of the wrapper shell when the tool itself could not be executed (POSIX convention). */
export const TOOL_NOT_EXECUTABLE_EXIT_CODES: ReadonlySet<number> = new Set([126, 127]);

/**
 * Wraps a command so that it runs under the address-space cap. Node cannot set rlimits on a child
 * directly, so a POSIX shell applies `ulimit -v` and then `exec`s the tool: the tool keeps the
 * shell's pid (killing the child kills ffmpeg) and arguments pass through "$@" without being parsed
 * by the shell. If the platform refuses the limit (some non-Linux systems do), the tool still runs:
 * the other limits (timeout, output cap, -max_alloc) remain.
 */
export function withAddressSpaceLimit(
  command: string,
  args: readonly string[],
  limitBytes: number = FFMPEG_ADDRESS_SPACE_BYTES,
): { command: string; args: string[] } {
  const limitKiB = Math.floor(limitBytes / 1024);
  return {
    command: '/bin/sh',
    args: ['-c', 'ulimit -v "$1" 2>/dev/null; shift; exec "$@"', 'svc-stt-ffmpeg', String(limitKiB), command, ...args],
  };
}
