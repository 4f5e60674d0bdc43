// A listener that cannot bind (a second instance on one machine, a privileged port, a host that is
// not this machine's) stops the start with a message naming the listener, the address and the
// setting to change, instead of a bare EADDRINUSE from whichever listener came last.
import { UWS_LISTEN_FAILED } from '../realtime/transport/transport.js';

/** One of the service's listeners: what the operator calls it and the setting that moves it. */
export interface ListenerName {
  /** e.g. `API`, `realtime`, `console`, `metrics`. */
  name: string;
  /** The environment variable of its port, e.g. SVC_CONSOLE_PORT. */
  portSetting: string;
  host: string;
  port: number;
}

export class ListenerStartError extends Error {
  override readonly name = 'ListenerStartError';
}

const WHY: Readonly<Record<string, (l: ListenerName) => string>> = {
  EADDRINUSE: (l) => `the address is in use (another svc-stt or another program listens there); set ${l.portSetting} to a free port`,
  EACCES: (l) => `permission denied (ports below 1024 need privileges); set ${l.portSetting} to a port above 1023`,
  // uWebSockets.js (SVC_REALTIME_TRANSPORT=uws) does not say why.
  [UWS_LISTEN_FAILED]: (l) => `the port is in use or needs privileges; set ${l.portSetting} to a free port`,
  EADDRNOTAVAIL: () => "the address is not one of this machine's; set SVC_HOST to one of its addresses",
};

/** Runs `start` (the listener's listen); a refused bind becomes a ListenerStartError, anything else passes. */
export async function startListener<T>(listener: ListenerName, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === undefined ? undefined : WHY[code];
    if (!why) throw error;
    const host = listener.host.includes(':') ? `[${listener.host}]` : listener.host;
    throw new ListenerStartError(`the ${listener.name} listener cannot listen on ${host}:${listener.port}: ${why(listener)}`, { cause: error });
  }
}
