// Why a model file cannot be used. Raised before whisper.cpp sees the file, because whisper.cpp may
// abort() the whole process on a malformed one instead of returning an error.

export type ModelFileErrorCode =
  /** No file at the path (or not a regular file). */
  | 'model_not_found'
  /** The file exists but cannot be read (permissions, I/O error). */
  | 'model_unreadable'
  /** Not a whisper.cpp ggml model, or one whisper.cpp cannot load safely. */
  | 'model_invalid'
  /** A model file that ends before its declared content: an interrupted copy or download. */
  | 'model_truncated';

export class ModelFileError extends Error {
  override readonly name = 'ModelFileError';

  constructor(
    readonly code: ModelFileErrorCode,
    readonly path: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${path}: ${message}`, options);
  }
}
