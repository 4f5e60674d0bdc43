// bench walk: the house's walk figures (issue 44's judge), measured rather than read: which source
// files one inline transcription and one realtime session (start to final) run code in, counted by
// V8's precise coverage around that one piece of work in a running service (a warm-up of each first,
// so start-up and first-use code are not counted), and by floor (src/<folder>). Fewer files and
// floors for the same behaviour is the aim; the figures are compared between commits, not judged.
// Background work that ticks inside the window (the webhook deliveries' poll, the key watch) counts too.
//   npm run bench -- walk
import { readFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { speechWav } from '../test/helpers/audio-fixtures.js';
import { connectRealtime, startMessage, wavPcm } from '../test/helpers/realtime-client.js';
import { startTestService } from '../test/helpers/test-service.js';
import { printResult, printTable } from './lib-report.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export async function run(): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  const svc = await startTestService({ SVC_LOG_LEVEL: 'warn' });
  try {
    const wav = await readFile(await speechWav(3));
    const inline = async () => {
      const form = new FormData();
      form.append('model', 'svc-medical-1');
      form.append('response_format', 'json');
      form.append('file', new Blob([new Uint8Array(wav)], { type: 'audio/wav' }), 'visit.wav');
      const res = await fetch(`${svc.url}/v1/audio/transcriptions`, { method: 'POST', body: form, headers: { authorization: `Bearer ${svc.key}` } });
      if (res.status !== 200) throw new Error(`inline: ${res.status} ${await res.text()}`);
    };
    const realtime = async () => {
      const client = await connectRealtime(svc.service.realtime!.url);
      client.start(startMessage(svc.key));
      await client.next('ready');
      await client.stream(wavPcm(wav), { pace: Infinity });
      client.stop();
      await client.next('final');
      await client.closed;
    };
    const walks: Array<{ name: string; files: string[] }> = [];
    for (const [name, once] of [
      ['inline request', inline],
      ['realtime session', realtime],
    ] as const) {
      await once();
      await entered(session); // what the warm-up ran, discarded
      await once();
      walks.push({ name, files: await entered(session) });
    }
    const floors = (files: string[]) => [...new Set(files.map((f) => f.split('/')[1]))].sort();
    printTable(
      ['walk', 'files', 'floors', 'floor list'],
      walks.map((w) => [w.name, w.files.length, floors(w.files).length, floors(w.files).join(' ')]),
    );
    for (const w of walks) console.log(`\n${w.name}:\n  ${w.files.join('\n  ')}`);
    printResult('walk', {
      inline_files: walks[0]!.files.length,
      inline_floors: floors(walks[0]!.files).length,
      realtime_files: walks[1]!.files.length,
      realtime_floors: floors(walks[1]!.files).length,
    });
  } finally {
    await svc.close();
    session.disconnect();
  }
}

/** The src/ files any function of which ran since the last call (precise coverage resets on each take). */
async function entered(session: Session): Promise<string[]> {
  const { result } = (await session.post('Profiler.takePreciseCoverage')) as {
    result: Array<{ url: string; functions: Array<{ ranges: Array<{ count: number }> }> }>;
  };
  return result
    .filter((script) => script.url.startsWith('file://'))
    .map((script) => ({ path: relative(ROOT, fileURLToPath(script.url)), ran: script.functions.some((f) => f.ranges[0]!.count > 0) }))
    .filter((script) => script.ran && script.path.startsWith('src/'))
    .map((script) => script.path)
    .sort();
}
