// Errors the engine raises; the service maps them to the contract's envelope (queue full -> 503).

export class EngineError extends Error {
  constructor(
    readonly code:
      'queue_full' | 'engine_closed' | 'model_load_failed' | 'vad_model_load_failed' | 'vad_not_configured' | 'invalid_audio' | 'transcription_failed',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EngineError';
  }
}

export function abortError(): Error {
  const error = new Error('The operation was aborted');
  error.name = 'AbortError';
  (error as NodeJS.ErrnoException).code = 'ABORT_ERR';
  return error;
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}
