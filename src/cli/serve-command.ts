// svc-stt serve: the HTTP service with embedded defaults (SQLite and local disk in SVC_DATA_DIR).
import { loadConfig } from '../config/load-config.js';
import { startService } from '../service/start-service.js';

export async function runServeCommand(): Promise<void> {
  const config = loadConfig(process.env);
  const service = await startService(config);
  if (service.firstKey && service.firstKeyFile) {
    // The key itself only on an interactive terminal: otherwise stdout and stderr are somebody's logs.
    const terminal = process.stdout.isTTY === true;
    (terminal ? process.stdout : process.stderr).write(firstKeyBanner(service.url, service.firstKeyFile, terminal ? service.firstKey : null));
  }
  process.stdout.write(`listening ${service.url}\n`);
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
