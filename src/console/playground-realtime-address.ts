// Where the playground's page reaches the realtime listener: the address the listener is bound to,
// except when it is bound to every interface (0.0.0.0, ::), an address no browser elsewhere can open:
// then the host name the browser reached the console by, with the listener's port (the console and
// the listener are served by the same process). A proxy that maps the listener elsewhere needs an
// address of its own, which the service does not take yet.
const EVERY_INTERFACE = new Set(['0.0.0.0', '[::]']);

/** The realtime listener's `ws://host:port` for a page the browser loaded from `consoleHostname`. */
export function realtimeUrlFor(boundUrl: string, consoleHostname: string): string {
  const url = new URL(boundUrl);
  if (EVERY_INTERFACE.has(url.hostname)) url.hostname = consoleHostname;
  return url.origin;
}
