import { spawn } from 'node:child_process';
import { basename } from 'node:path';

import { traced } from '../domain/tracing.js';
import { TOOL_NOT_EXECUTABLE_EXIT_CODES, withAddressSpaceLimit } from './ffmpeg-limits.js';

/**
 * Runs one ffmpeg/ffprobe subprocess under a wall-clock timeout, an optional AbortSignal and the
 * address-space cap, streams its stdout to the caller and keeps only the tail of its stderr.
 * It reports how the run ended; turning that into an audio error is the caller's business.
 */

/** Enough of ffmpeg's stderr to see the last errors, small enough to log. */
export const STDERR_TAIL_BYTES = 4096;

export type ToolRunEnding =
  /** The process ended on its own (`exitCode` null when a signal we did not send killed it). */
  | { kind: 'exited'; exitCode: number | null; exitSignal: NodeJS.Signals | null; stderrTail: string }
  /** `onStdout` asked to stop; the process was killed. */
  | { kind: 'stopped'; stderrTail: string }
  | { kind: 'timed_out'; stderrTail: string }
  | { kind: 'aborted'; reason: unknown; stderrTail: string };

export interface ToolRunOptions {
  command: string;
  args: readonly string[];
  timeoutMs: number;
  signal?: AbortSignal;
  /** Receives stdout as it arrives; return 'stop' to kill the process (e.g. an output cap was hit). */
  onStdout?: (chunk: Buffer) => 'continue' | 'stop';
  /** Sees all of stderr as it arrives (the ending only carries its tail). */
  onStderr?: (chunk: Buffer) => void;
}

/** The tool is missing or not executable: a server problem, never the upload's fault. */
export class AudioToolUnavailableError extends Error {
  override readonly name = 'AudioToolUnavailableError';
  constructor(
    readonly command: string,
    options?: ErrorOptions,
  ) {
    super(`${command} could not be started; is it installed and on PATH?`, options);
  }
}

/** One run of ffmpeg or ffprobe, traced as a `decode` or `probe` span (its arguments hold paths: never recorded). */
export function runAudioTool(options: ToolRunOptions): Promise<ToolRunEnding> {
  const name = basename(options.command) === 'ffprobe' ? 'probe' : 'decode';
  return traced(name, { 'svc.tool': basename(options.command) }, async (span) => {
    const ending = await runTool(options);
    span.setAttribute('svc.tool.ending', ending.kind);
    return ending;
  });
}

function runTool(options: ToolRunOptions): Promise<ToolRunEnding> {
  const { command, args, timeoutMs, signal, onStdout, onStderr } = options;
  if (signal?.aborted) return Promise.resolve({ kind: 'aborted', reason: signal.reason, stderrTail: '' });

  return new Promise((resolvePromise, rejectPromise) => {
    const wrapped = withAddressSpaceLimit(command, args);
    const child = spawn(wrapped.command, wrapped.args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      // Colour codes would only pollute the logged stderr tail.
      env: { ...process.env, AV_LOG_FORCE_NOCOLOR: '1' },
    });

    const stderr = new BoundedTail(STDERR_TAIL_BYTES);
    let decided: ToolRunEnding['kind'] | null = null;
    let abortReason: unknown;

    const kill = (kind: 'stopped' | 'timed_out' | 'aborted'): void => {
      if (decided !== null) return;
      decided = kind;
      // SIGKILL: a process stuck in a pathological file may ignore or be slow to act on SIGTERM.
      child.kill('SIGKILL');
    };

    const timer = setTimeout(() => kill('timed_out'), timeoutMs);
    const onAbort = (): void => {
      abortReason = signal?.reason;
      kill('aborted');
    };
    signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout.on('data', (chunk: Buffer) => {
      if (decided !== null) return;
      if (onStdout?.(chunk) === 'stop') kill('stopped');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr.push(chunk);
      onStderr?.(chunk);
    });

    let spawnError: Error | undefined;
    child.on('error', (error) => {
      spawnError = error;
    });

    child.on('close', (exitCode, exitSignal) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      const stderrTail = stderr.text();
      if (spawnError !== undefined && decided === null) {
        rejectPromise(new AudioToolUnavailableError(command, { cause: spawnError }));
        return;
      }
      switch (decided) {
        case 'stopped':
        case 'timed_out':
          resolvePromise({ kind: decided, stderrTail });
          return;
        case 'aborted':
          resolvePromise({ kind: 'aborted', reason: abortReason, stderrTail });
          return;
        default:
          if (exitCode !== null && TOOL_NOT_EXECUTABLE_EXIT_CODES.has(exitCode)) {
            rejectPromise(new AudioToolUnavailableError(command, { cause: new Error(stderrTail) }));
            return;
          }
          resolvePromise({ kind: 'exited', exitCode, exitSignal, stderrTail });
      }
    });
  });
}

/** Keeps the last `limit` bytes written to it, in amortised O(1) per byte. */
class BoundedTail {
  private chunks: Buffer[] = [];
  private length = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.length += chunk.length;
    if (this.length > 2 * this.limit) this.compact();
  }

  text(): string {
    this.compact();
    return this.chunks.length === 0 ? '' : this.chunks[0].toString('utf8');
  }

  private compact(): void {
    const all = Buffer.concat(this.chunks);
    const tail = all.subarray(Math.max(0, all.length - this.limit));
    this.chunks = [Buffer.from(tail)];
    this.length = tail.length;
  }
}
