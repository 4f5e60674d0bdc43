/**
 * Typed failures of probing and decoding audio.
 *
 * Messages are fixed strings: they may reach API clients, so they never carry ffmpeg's output, file
 * names or anything else derived from the request. What a server log needs (ffmpeg's stderr tail, the
 * reason) lives on `detail`, which is non-enumerable so that JSON serialisation and generic error
 * serialisers do not ship it by accident.
 */

export type AudioErrorCode = 'unsupported_container' | 'undecodable_audio' | 'audio_too_long' | 'audio_too_short' | 'decode_timeout' | 'decode_aborted';

export const AUDIO_ERROR_MESSAGES: Readonly<Record<AudioErrorCode, string>> = Object.freeze({
  unsupported_container: 'The audio container is not supported.',
  undecodable_audio: 'The audio could not be decoded.',
  audio_too_long: 'The audio is longer than the allowed maximum.',
  audio_too_short: 'The audio is shorter than the allowed minimum.',
  decode_timeout: 'Decoding the audio took too long.',
  decode_aborted: 'Decoding the audio was aborted.',
});

export abstract class AudioError extends Error {
  abstract readonly code: AudioErrorCode;
  /** Server-side diagnostics (e.g. ffmpeg's stderr tail). Never send to clients. */
  declare readonly detail: string | undefined;

  protected constructor(code: AudioErrorCode, detail?: string, options?: ErrorOptions) {
    super(AUDIO_ERROR_MESSAGES[code], options);
    Object.defineProperty(this, 'detail', {
      value: detail,
      enumerable: false,
      writable: false,
      configurable: false,
    });
  }
}

export class UnsupportedContainerError extends AudioError {
  readonly code = 'unsupported_container' as const;
  override readonly name = 'UnsupportedContainerError';
  constructor(detail?: string) {
    super('unsupported_container', detail);
  }
}

export class UndecodableAudioError extends AudioError {
  readonly code = 'undecodable_audio' as const;
  override readonly name = 'UndecodableAudioError';
  constructor(detail?: string) {
    super('undecodable_audio', detail);
  }
}

export class AudioTooLongError extends AudioError {
  readonly code = 'audio_too_long' as const;
  override readonly name = 'AudioTooLongError';
  /**
   * @param maxSeconds the limit that was exceeded
   * @param durationSeconds the known duration, or a lower bound of it when decoding stopped early
   */
  constructor(
    readonly maxSeconds: number,
    readonly durationSeconds?: number,
    detail?: string,
  ) {
    super('audio_too_long', detail);
  }
}

export class AudioTooShortError extends AudioError {
  readonly code = 'audio_too_short' as const;
  override readonly name = 'AudioTooShortError';
  constructor(
    readonly minSeconds: number,
    readonly durationSeconds: number,
    detail?: string,
  ) {
    super('audio_too_short', detail);
  }
}

export class DecodeTimeoutError extends AudioError {
  readonly code = 'decode_timeout' as const;
  override readonly name = 'DecodeTimeoutError';
  constructor(
    readonly timeoutMs: number,
    detail?: string,
  ) {
    super('decode_timeout', detail);
  }
}

/** Named `AbortError` like Node's own abort failures, so generic `err.name === 'AbortError'` checks work. */
export class DecodeAbortedError extends AudioError {
  readonly code = 'decode_aborted' as const;
  override readonly name = 'AbortError';
  constructor(reason?: unknown) {
    super('decode_aborted', undefined, { cause: reason });
  }
}

export function isAudioError(value: unknown): value is AudioError {
  return value instanceof AudioError;
}
