// The realtime transports this runtime can serve with: uWebSockets.js only where its binary loads
// (glibc 2.38 or newer), `ws` everywhere. Where uWS cannot load in the test process, its tests are
// skipped here and run instead by test/realtime/uws-transport.test.ts on a Node.js that runs on
// Debian 13's glibc, with SVC_TEST_UWS_REQUIRED set: there a uWS that does not load fails them.
import { loadUwsTransport, uwsUnavailableReason } from '../../src/realtime/transport/uws-transport.js';

const uwsLoads = loadUwsTransport() !== null;
if (!uwsLoads && process.env.SVC_TEST_UWS_REQUIRED === '1') throw new Error(`SVC_TEST_UWS_REQUIRED: ${uwsUnavailableReason()}`);

/** A tap `skip` for a uWS test: false where it loads, else the reason and where those tests run instead. */
export const UWS_SKIP: false | string = uwsLoads ? false : `${uwsUnavailableReason()}: test/realtime/uws-transport.test.ts runs this on glibc 2.41`;

/** The fastest transport that loads here (uWS where it can, else ws). */
export const PREFERRED_TRANSPORT: 'uws' | 'ws' = uwsLoads ? 'uws' : 'ws';
