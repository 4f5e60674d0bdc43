import { AudioTooLongError, AudioTooShortError } from './audio-errors.js';

/**
 * Checks a duration against the accepted window (the contract's is 1 s to `max_audio_seconds`).
 * Which HTTP status each side maps to is the route's decision, not this module's.
 */
export function assertDurationWithin(durationSeconds: number, window: { minSeconds: number; maxSeconds: number }): void {
  if (durationSeconds < window.minSeconds) throw new AudioTooShortError(window.minSeconds, durationSeconds);
  if (durationSeconds > window.maxSeconds) throw new AudioTooLongError(window.maxSeconds, durationSeconds);
}
