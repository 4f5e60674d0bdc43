// The console app's registered routes, read from the app itself (Fastify's printRoutes), so a test
// that walks them covers a page or form added later without being told of it.
import { buildConsoleApp } from '../../src/console/console-app.js';
import type { ConsoleDeps } from '../../src/console/console-context.js';

export interface ConsoleRoute {
  method: string;
  /** As registered, parameters included (`/keys/:id/revoke`). */
  url: string;
}

/** Every route of the console app, HEAD left out (Fastify adds one to each GET). */
export async function consoleRoutes(): Promise<ConsoleRoute[]> {
  // Registering routes reads none of the dependencies: placeholders are enough to list them.
  const app = buildConsoleApp({ clock: () => 0, secureCookies: false, realtimeUrl: 'ws://127.0.0.1:1', stores: {} } as unknown as ConsoleDeps);
  await app.ready();
  const routes = parsePrintedRoutes(app.printRoutes({ commonPrefix: false }));
  await app.close();
  return routes;
}

/** printRoutes' tree: each level indented four characters, a node's text appended to its parent's path. */
export function parsePrintedRoutes(printed: string): ConsoleRoute[] {
  const routes: ConsoleRoute[] = [];
  const parents: string[] = [];
  for (const line of printed.split('\n')) {
    const match = /^([│ ]*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1].length / 4;
    const url = (parents[depth - 1] ?? '') + match[2];
    parents[depth] = url;
    parents.length = depth + 1;
    for (const method of (match[3] ?? '').split(', ').filter((m) => m !== '' && m !== 'HEAD')) routes.push({ method, url });
  }
  return routes;
}
