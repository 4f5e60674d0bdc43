// svc-stt serve [--role api|worker|all]: the HTTP service with embedded defaults (SQLite and local
// disk in SVC_DATA_DIR), or one role of a scaled-out deployment (SVC_DATABASE_URL, SVC_S3_*).
// `--role` overrides SVC_ROLE. SIGTERM drains (requests and job chunks in flight get SVC_DRAIN_MS to
// finish, a webhook attempt its own timeout) and exits 0.
import { loadConfig } from '../config/load-config.js';
import { SERVICE_ROLES, type ServiceRole } from '../config/service-config.js';
import { startService } from '../service/start-service.js';
import { UsageError } from './usage-error.js';

export async function runServeCommand(args: string[] = []): Promise<void> {
  const config = loadConfig(process.env);
  const role = roleArgument(args);
  if (role) config.role = role;
  const service = await startService(config);
  if (service.firstKey && service.firstKeyFile) {
    // The key itself only on an interactive terminal: otherwise stdout and stderr are somebody's logs.
    const terminal = process.stdout.isTTY === true;
    (terminal ? process.stdout : process.stderr).write(firstKeyBanner(service.url, service.firstKeyFile, terminal ? service.firstKey : null));
  }
  // stdout is the JSON log: the ready record is one of its records, {"msg":"listening","url",...}, the
  // one a supervisor waits for. It is logged whatever SVC_LOG_LEVEL says (a child logger at info).
  const ready = service.app.log.child({}, { level: 'info' });
  ready.info(
    { url: service.url, ...(service.realtime ? { realtimeUrl: service.realtime.url } : {}), ...(service.consoleUrl ? { consoleUrl: service.consoleUrl } : {}) },
    'listening',
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.app.log.info({ signal }, 'shutting down');
    service.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

function roleArgument(args: string[]): ServiceRole | null {
  if (args.length === 0) return null;
  const [flag, value, ...extra] = args[0].startsWith('--role=') ? ['--role', args[0].slice('--role='.length), ...args.slice(1)] : args;
  if (flag !== '--role' || value === undefined || extra.length > 0) throw new UsageError(`serve takes only --role ${SERVICE_ROLES.join('|')}`);
  if (!(SERVICE_ROLES as readonly string[]).includes(value)) throw new UsageError(`--role must be one of ${SERVICE_ROLES.join(', ')}`);
  return value as ServiceRole;
}

/** Names the file that holds the first key (and shows the key when `key` is given). */
export function firstKeyBanner(url: string, file: string, key: string | null): string {
  return (
    `\nsvc-stt: created the first API key. It is in ${file} (readable only by this user);\n` +
    `store it somewhere safe, then delete the file.\n\n` +
    (key ? `  ${key}\n\n` : '') +
    `  curl ${url}/v1/audio/transcriptions -H "Authorization: Bearer $(cat "${file}")" \\\n` +
    `       -F model=svc-medical-1 -F response_format=json -F file=@recording.mp3\n\n`
  );
}
