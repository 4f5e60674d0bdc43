// Where a command prints its results: process.stdout, or a buffer in tests that run commands
// in-process (a child process per case costs about a second of TypeScript loading).
export interface CommandOutput {
  write(text: string): unknown;
}
