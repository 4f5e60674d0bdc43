// `svc-stt serve` as a real child process (for tests that SIGKILL it and restart it on the same data
// folder): resolves once the ready line is printed.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const cli = ['--import', 'tsx', join(import.meta.dirname, '..', '..', 'src', 'cli', 'run.ts')];

export interface ServeProcess {
  url: string;
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<unknown>;
}

export async function serve(env: NodeJS.ProcessEnv): Promise<ServeProcess> {
  const child = spawn(process.execPath, [...cli, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  if (process.env.CRASH_DEBUG) child.stderr!.pipe(process.stderr);
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (c) => {
      stdout += c;
      const m = /^listening (http:\/\/\S+)$/m.exec(stdout);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  return { url, child, stdout: () => stdout, stderr: () => stderr, exited };
}

export async function kill(server: ServeProcess): Promise<void> {
  server.child.kill('SIGKILL');
  await server.exited;
}
