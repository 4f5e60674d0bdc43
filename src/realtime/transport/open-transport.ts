// Picks the realtime listener's server at start: uWebSockets.js where its binary loads, else `ws`.
// Its own file because it loads both implementations, which import the seam (transport.ts) back.
import type { RealtimeTransport, TransportName } from './transport.js';

/**
 * The transport to serve with: `uws` where its binary loads, else `ws`. `preference` forces one
 * (`ws` always loads; `uws` throws where its binary does not).
 */
export async function openTransport(preference: 'auto' | TransportName = 'auto'): Promise<RealtimeTransport> {
  if (preference !== 'ws') {
    const { loadUwsTransport } = await import('./uws-transport.js');
    const uws = loadUwsTransport();
    if (uws) return uws;
    if (preference === 'uws') throw new Error('uWebSockets.js has no binary for this platform and Node.js version');
  }
  const { wsTransport } = await import('./ws-transport.js');
  return wsTransport;
}
