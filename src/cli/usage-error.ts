// A mistake in the command line: reported in one line, exit code 2.
export class UsageError extends Error {
  readonly exitCode = 2;
}
