// Picks the realtime listener's server at start: uWebSockets.js where its binary loads, else `ws`.
// Its own file because it loads both implementations, which import the seam (transport.ts) back.
import type { RealtimeTransport, TransportName } from './transport.js';

/**
 * The transport to serve with: `uws` where its binary loads, else `ws`. `preference` forces one
 * (`ws` always loads; `uws` throws where its binary does not).
 */
export async function openTransport(preference: 'auto' | TransportName = 'auto'): Promise<RealtimeTransport> {
  if (preference !== 'ws') {
    const { loadUwsTransport, uwsUnavailableReason } = await import('./uws-transport.js');
    const uws = loadUwsTransport();
    if (uws) return uws;
    if (preference === 'uws') throw new Error(`SVC_REALTIME_TRANSPORT=uws cannot serve: ${uwsUnavailableReason()}`);
  }
  const { wsTransport } = await import('./ws-transport.js');
  return wsTransport;
}

/** Why uWebSockets.js cannot serve in this process (one sentence for the start-up line); null where it can. */
export async function uwsUnavailableReason(): Promise<string | null> {
  const { uwsUnavailableReason: reason } = await import('./uws-transport.js');
  return reason();
}
