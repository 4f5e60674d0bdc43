// svc-stt serve: the HTTP service with embedded defaults (SQLite and local disk in SVC_DATA_DIR).
import { loadConfig } from '../config/load-config.js';
import { startService } from '../service/start-service.js';

export async function runServeCommand(): Promise<void> {
  const config = loadConfig(process.env);
  const service = await startService(config);
  if (service.firstKey) {
    process.stderr.write(
      `\nsvc-stt: created the first API key (shown once, keep it safe):\n\n  ${service.firstKey}\n\n` +
        `  curl ${service.url}/v1/audio/transcriptions -H "Authorization: Bearer ${service.firstKey}" \\\n` +
        `       -F model=svc-medical-1 -F response_format=json -F file=@recording.mp3\n\n`,
    );
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
