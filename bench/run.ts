// `npm run bench -- NAME [options]`: runs bench/NAME.ts. Every benchmark prints a human-readable
// table and, as its last line, one JSON object {"bench":"NAME", ...figures}. It never fails on a figure.
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.ts') && !['run.ts'].includes(f) && !f.startsWith('lib-'))
  .map((f) => f.slice(0, -3));

const [name, ...args] = process.argv.slice(2);
if (!name || !available.includes(name)) {
  console.error(`usage: npm run bench -- NAME [options]\nbenchmarks: ${available.join(', ')}`);
  process.exit(2);
}
const bench = (await import(pathToFileURL(`${here}/${name}.ts`).href)) as { run(args: string[]): Promise<void> };
await bench.run(args);
