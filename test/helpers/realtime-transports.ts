// The realtime transports this runtime can serve with: uWebSockets.js only where its binary loads (the
// registry build covers Node.js 16/18/20), `ws` everywhere. Tests of both skip uWS, visibly, elsewhere.
import { loadUwsTransport } from '../../src/realtime/transport/uws-transport.js';

const uwsLoads = loadUwsTransport() !== null;

/** A tap `skip` for a uWS test: false where it loads, else the reason. */
export const UWS_SKIP: false | string = uwsLoads ? false : `uWebSockets.js has no binary for Node.js ${process.version}`;

/** The fastest transport that loads here (uWS where it can, else ws). */
export const PREFERRED_TRANSPORT: 'uws' | 'ws' = uwsLoads ? 'uws' : 'ws';
