// How an ffmpeg decode that did not finish cleanly is reported: the same typed errors whether the
// whole file or one window was being decoded. (`stopped` — the caller ended the run itself — means
// different things to different callers and is theirs to judge.)
import { DecodeAbortedError, DecodeTimeoutError, UndecodableAudioError } from './audio-errors.js';
import type { ToolRunEnding } from './ffmpeg-process.js';

export function throwIfDecodeFailed(ending: ToolRunEnding, timeoutMs: number): void {
  switch (ending.kind) {
    case 'timed_out':
      throw new DecodeTimeoutError(timeoutMs, ending.stderrTail);
    case 'aborted':
      throw new DecodeAbortedError(ending.reason);
    case 'exited':
      if (ending.exitCode !== 0) {
        throw new UndecodableAudioError(`ffmpeg exited with ${ending.exitCode ?? ending.exitSignal}: ${ending.stderrTail}`);
      }
  }
}
