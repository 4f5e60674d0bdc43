#!/usr/bin/env node
// The svc-stt command. The TypeScript sources are compiled to dist/ by `npm install` (prepare).
import('../dist/cli/main.js').then((cli) => cli.main(process.argv.slice(2)));
