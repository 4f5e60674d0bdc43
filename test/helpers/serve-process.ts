// `svc-stt serve` as a real child process (for tests that SIGKILL it and restart it on the same data
// folder): resolves once the ready record is logged.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { firstKeyPath } from '../../src/service/first-key-file.js';
import { openTestLog } from './test-logs.js';
import { testModelPath } from './test-models.js';

/** Node arguments that run the `svc-stt` CLI from its TypeScript sources: `node ...CLI_ARGS COMMAND`. */
export const CLI_ARGS = ['--import', 'tsx', join(import.meta.dirname, '..', '..', 'src', 'cli', 'run.ts')];

/**
 * The environment of a test server process: this data folder, free ports, the generated micro model
 * with a token cap and no temperature fallback (random weights), one worker; `extra` adds or overrides.
 */
export async function serveEnv(dataDir: string, extra: Record<string, string> = {}): Promise<NodeJS.ProcessEnv> {
  return {
    ...process.env,
    SVC_DATA_DIR: dataDir,
    SVC_PORT: '0',
    SVC_REALTIME_PORT: '0',
    SVC_CONSOLE_PORT: '0',
    SVC_MODEL: await testModelPath('micro'),
    SVC_MAX_TOKENS: '8',
    SVC_TEMPERATURE_FALLBACK: 'false',
    SVC_WORKERS: '1',
    SVC_LOG_LEVEL: 'warn',
    ...extra,
  };
}

export interface ServeProcess {
  url: string;
  /** The realtime listener's ws:// URL (roles that serve the API). */
  realtimeUrl: string | null;
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<unknown>;
}

/**
 * Starts `svc-stt serve ARGS...` (e.g. `--role worker`) and resolves with its URL once it is ready;
 * `node` runs it on another Node.js binary (newer-glibc-node.ts).
 */
export async function serve(env: NodeJS.ProcessEnv, args: string[] = [], node = process.execPath): Promise<ServeProcess> {
  const child = spawn(node, [...CLI_ARGS, 'serve', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  if (process.env.CRASH_DEBUG) child.stderr!.pipe(process.stderr);
  // Everything the server prints is kept for the log audit (test-logs.ts).
  const log = openTestLog('serve');
  if (log) {
    child.stdout!.on('data', (c) => log.write(c));
    child.stderr!.on('data', (c) => log.write(c));
    child.on('close', () => log.end());
  }
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const { url, realtimeUrl } = await new Promise<ReadyRecord>((resolve, reject) => {
    child.stdout!.on('data', (c) => {
      stdout += c;
      const ready = readyRecord(stdout);
      if (ready) resolve(ready);
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  return { url, realtimeUrl, child, stdout: () => stdout, stderr: () => stderr, exited };
}

export interface ReadyRecord {
  url: string;
  realtimeUrl: string | null;
}

/** The URLs of the ready record (`{"msg":"listening","url":...}`) among the JSON log lines of `stdout`, once it is there. */
export function readyRecord(stdout: string): ReadyRecord | null {
  for (const line of stdout.split('\n')) {
    if (!line.includes('"msg":"listening"')) continue;
    try {
      const record = JSON.parse(line) as { msg?: unknown; url?: unknown; realtimeUrl?: unknown };
      if (record.msg === 'listening' && typeof record.url === 'string') {
        return { url: record.url, realtimeUrl: typeof record.realtimeUrl === 'string' ? record.realtimeUrl : null };
      }
    } catch {
      // A line still being written.
    }
  }
  return null;
}

/** The API key the server created on its first start in `dataDir`: the 0600 file it wrote (never its output). */
export async function firstKey(dataDir: string): Promise<string> {
  return (await readFile(firstKeyPath(dataDir), 'utf8')).trim();
}

export async function kill(server: ServeProcess): Promise<void> {
  server.child.kill('SIGKILL');
  await server.exited;
}
