// A throwaway PostgreSQL 15 cluster for tests (docs/DESIGN.md "Dependencies"): initdb into a temp dir,
// a free loopback port, no password (trust), removed afterwards. It never touches the cluster the
// Debian package may have created (/var/lib/postgresql/15/main, port 5432).
//
// The server refuses to run as root, and CI and development machines run as root: then the temp
// dir belongs to the `postgres` OS user (created by the Debian package) and initdb/pg_ctl run
// through `runuser -u postgres --`.
//
// One cluster per test process is enough (tap runs each test file in its own process): use
// sharedPostgres(), and createDatabase() for each test group's isolation.
import { execFile, execFileSync } from 'node:child_process';
import { accessSync, chownSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import pg from 'pg';

export const BIN_DIR = '/usr/lib/postgresql/15/bin';
const START_TIMEOUT_S = 60;
/** A free port can be taken by someone else between our probe and the server's bind: try again. */
const START_ATTEMPTS = 3;

const run = promisify(execFile);

export interface PostgresServer {
  /** The `postgres` database as the `postgres` superuser: postgres://postgres@127.0.0.1:PORT/postgres */
  readonly url: string;
  readonly port: number;
  /** A new, empty database with a unique name; returns its URL. */
  createDatabase(): Promise<string>;
  /** `pg_ctl stop -m fast`: connections are cut, the data stays. */
  stop(): Promise<void>;
  /** Starts the stopped server again on the same port and data dir (the database comes back). */
  start(): Promise<void>;
  /** Stops the server and removes its files. */
  destroy(): Promise<void>;
}

export async function startPostgres(): Promise<PostgresServer> {
  requireBinaries();
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? postgresUser() : null;
  // Outside any folder that only root may enter (the repository may be one), so `postgres` can reach it.
  const root = mkdtempSync(join(tmpdir(), 'svc-stt-pg-'));
  if (owner) chownSync(root, owner.uid, owner.gid);
  const dataDir = join(root, 'data');
  const logFile = join(root, 'server.log');
  const command = (program: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', join(BIN_DIR, program), ...args]] : [join(BIN_DIR, program), args];

  let port = 0;
  let running = false;
  let databases = 0;

  const pgCtl = async (args: string[]) => {
    const [file, argv] = command('pg_ctl', ['-D', dataDir, ...args]);
    await run(file, argv);
  };
  const startOn = async (onPort: number) => {
    // fsync, synchronous_commit and full_page_writes off: test speed only. A crash of this
    // cluster may lose or corrupt data, which no test relies on; never use these settings for real.
    const options = [
      `-p ${onPort}`,
      `-k ${root}`,
      '-c listen_addresses=127.0.0.1',
      '-c fsync=off',
      '-c synchronous_commit=off',
      '-c full_page_writes=off',
      '-c max_connections=200',
    ].join(' ');
    // -l: without a log file the server keeps pg_ctl's stdout open, and pg_ctl's caller would wait forever.
    await pgCtl(['-w', '-t', String(START_TIMEOUT_S), '-l', logFile, '-o', options, 'start']);
    running = true;
  };

  try {
    // Databases sort text the linguistic way (ICU en-US: 'a' < 'B'), as one created under a typical
    // en_US.UTF-8 locale does, so a test catches code that needs byte order and did not ask for it.
    const locale = ['-E', 'UTF8', '--locale=C', '--locale-provider=icu', '--icu-locale=en-US'];
    const [file, argv] = command('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', ...locale, '--no-sync']);
    await run(file, argv);
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      try {
        await startOn(port);
        break;
      } catch (error) {
        if (attempt >= START_ATTEMPTS) throw new Error(`PostgreSQL did not start: ${describe(error)}\n${logTail(logFile)}`, { cause: error });
      }
    }
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }

  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const server: PostgresServer = {
    url,
    port,
    async createDatabase() {
      const name = `test_${process.pid}_${++databases}_${Math.random().toString(36).slice(2, 8)}`;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      if (!running) return;
      await pgCtl(['-w', '-m', 'fast', 'stop']);
      running = false;
    },
    async start() {
      if (running) return;
      try {
        await startOn(port);
      } catch (error) {
        throw new Error(`PostgreSQL did not start again on port ${port}: ${describe(error)}\n${logTail(logFile)}`, { cause: error });
      }
    },
    async destroy() {
      await server.stop();
      rmSync(root, { recursive: true, force: true });
      stopAtExit.delete(server);
    },
  };
  stopAtExit.set(server, () => {
    if (running) {
      const [file, argv] = command('pg_ctl', ['-D', dataDir, '-w', '-m', 'fast', 'stop']);
      try {
        execFileSync(file, argv, { stdio: 'ignore' });
      } catch {
        // Best effort at exit: the files go anyway.
      }
    }
    rmSync(root, { recursive: true, force: true });
  });
  return server;
}

let shared: Promise<PostgresServer> | null = null;

/** This process's cluster, started on first use and stopped and removed when the process exits. */
export function sharedPostgres(): Promise<PostgresServer> {
  shared ??= startPostgres();
  return shared;
}

// Every cluster a process started goes with it, even when a test forgot destroy(). The handler is
// synchronous, as 'exit' handlers must be. (A process killed by a signal skips it: pg_ctl stop the
// leftover by its data dir, /tmp/svc-stt-pg-*/data.)
const stopAtExit = new Map<PostgresServer, () => void>();
process.on('exit', () => {
  for (const cleanup of stopAtExit.values()) cleanup();
});

function requireBinaries(): void {
  try {
    accessSync(join(BIN_DIR, 'pg_ctl'), constants.X_OK);
    accessSync(join(BIN_DIR, 'initdb'), constants.X_OK);
  } catch {
    throw new Error(`PostgreSQL 15 is not installed (no ${BIN_DIR}/pg_ctl): run bash .ci/run`);
  }
}

function postgresUser(): { uid: number; gid: number } {
  try {
    const [uid, gid] = ['-u', '-g'].map((flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim()));
    return { uid, gid };
  } catch {
    throw new Error('running as root, and there is no `postgres` OS user to run the server as: run bash .ci/run (it installs postgresql-15)');
  }
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

function describe(error: unknown): string {
  const stderr = (error as { stderr?: string }).stderr;
  return stderr?.trim() || (error instanceof Error ? error.message : String(error));
}

function logTail(logFile: string): string {
  try {
    return readFileSync(logFile, 'utf8').split('\n').slice(-20).join('\n');
  } catch {
    return '(no server log)';
  }
}
