// Child process of `bench memory`: opens an engine with N workers, keeps every worker busy once (so
// each has allocated its decoding state), and reports its resident memory.
import { readFileSync } from 'node:fs';

import { Engine } from '../src/engine/engine.js';

const [model, workersArg, pcmFile] = process.argv.slice(2);
const workers = Number(workersArg);
const pcm = new Float32Array(readFileSync(pcmFile).buffer.slice(0));

function statusKb(field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) : NaN;
}

const engine = await Engine.open({ model, workers, threadsPerWorker: 1 });
await Promise.all(Array.from({ length: workers }, () => engine.transcribe(pcm, { language: 'en', temperatureInc: 0, maxTokens: 4 })));
const rssKb = statusKb('VmRSS');
const peakKb = statusKb('VmHWM');
await engine.close();
process.stdout.write(JSON.stringify({ workers, rss_mb: rssKb / 1024, peak_mb: peakKb / 1024 }) + '\n');
