// The console's own listener (SVC_CONSOLE_PORT, on the API's host rules): its cookies and CSP never
// mix with the API's. Served by the processes that serve the API.
import { buildConsoleApp } from './console-app.js';
import type { ConsoleDeps } from './console-context.js';

export interface ConsoleListener {
  url: string;
  close(): Promise<void>;
}

export interface ConsoleListenerOptions extends Omit<ConsoleDeps, 'secureCookies'> {
  host: string;
  port: number;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);

export async function startConsoleListener(options: ConsoleListenerOptions): Promise<ConsoleListener> {
  // Plain HTTP on loopback (a developer's own machine) cannot carry a Secure cookie; anywhere else the
  // console is reached through TLS (a proxy in front of it), and its cookie is Secure.
  const secureCookies = !LOOPBACK_HOSTS.has(options.host);
  const app = buildConsoleApp({ ...options, secureCookies });
  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return { url: `http://${host}:${port}`, close: () => app.close() };
}
