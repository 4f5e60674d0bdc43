// Runs a CLI command in-process and returns what it wrote to stdout.
export async function capturedStdout(run: () => Promise<void>): Promise<string> {
  let out = '';
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string) => {
    out += chunk;
    return true;
  }) as typeof process.stdout.write;
  try {
    await run();
  } finally {
    process.stdout.write = write;
  }
  return out;
}
