// Runs the CLI straight from the TypeScript sources (tests, development without a build):
//   node --import tsx src/cli/run.ts keys list --json
// The installed command (bin/svc-stt.js) runs the compiled dist/cli/main.js instead.
import { main } from './main.js';

await main(process.argv.slice(2));
