// The realtime listener (SVC_REALTIME_PORT): the session protocol at /v1/realtime and /v1/stream on
// the transport chosen at start (uWS.js where it loads, else ws), with the project seat counts shared
// by both paths and by every process on the database.
import type { RealtimeTransportChoice } from '../config/service-config.js';
import { MAX_START_BYTES } from '../contract/realtime-start.js';
import type { ModelId } from '../domain/model-ids.js';
import type { Engine } from '../engine/engine.js';
import type { KeyStore } from '../store/key-store.js';
import type { RealtimeSeatStore } from '../store/realtime-seat-store.js';
import { RealtimeSession, type SessionDeps } from './realtime-session.js';
import { SessionCapacity } from './session-capacity.js';
import type { SessionLimits } from './session-limits.js';
import { openTransport } from './transport/open-transport.js';
import type { TransportLimits, TransportName } from './transport/transport.js';

export const REALTIME_PATHS = ['/v1/realtime', '/v1/stream'] as const;

export const TRANSPORT_LIMITS: TransportLimits = {
  // 4 s of PCM16 at 16 kHz, far above any client's frame (20-100 ms is usual).
  maxFrameBytes: Math.max(128 * 1024, MAX_START_BYTES),
  // Events are small: a client holding a megabyte of them unread has stopped reading.
  maxBufferedBytes: 1024 * 1024,
  idleSeconds: 60,
};

export interface RealtimeListenerOptions {
  host: string;
  port: number;
  transport: RealtimeTransportChoice;
  keys: KeyStore;
  /** Client secrets a `start` may present instead of a key (POST /v1/realtime/client_secrets mints them). */
  clientSecrets: SessionDeps['clientSecrets'];
  /** Epoch milliseconds, for client secrets' expiry: the service's clock. */
  clock?: () => number;
  /** Notes the use of each session's key (its "last used"); absent: not noted. */
  keyUse?: SessionDeps['keyUse'];
  billing: SessionDeps['billing'];
  /** Tells open sessions that their key was revoked or its usage paused. */
  watch: SessionDeps['watch'];
  /** Where seats are counted: shared by every process on the database. */
  seats: RealtimeSeatStore;
  engines: Record<ModelId, Engine>;
  /** The tenants' enrolled voices a start may name for live labels. */
  voices?: SessionDeps['voices'];
  limits?: Partial<SessionLimits>;
  onSessionEnd?: SessionDeps['onEnd'];
}

export interface RealtimeListener {
  url: string;
  port: number;
  transport: TransportName;
  capacity: SessionCapacity;
  /** Sessions open now. */
  sessions(): number;
  close(): Promise<void>;
}

export async function startRealtimeListener(options: RealtimeListenerOptions): Promise<RealtimeListener> {
  const transport = await openTransport(options.transport);
  const capacity = new SessionCapacity(options.seats);
  let open = 0;
  const listening = await transport.listen(options.host, options.port, REALTIME_PATHS, TRANSPORT_LIMITS, (connection) => {
    open++;
    const session = new RealtimeSession(connection, {
      keys: options.keys,
      clientSecrets: options.clientSecrets,
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.keyUse ? { keyUse: options.keyUse } : {}),
      billing: options.billing,
      watch: options.watch,
      capacity,
      engines: options.engines,
      ...(options.voices ? { voices: options.voices } : {}),
      transport: transport.name,
      ...(options.limits ? { limits: options.limits } : {}),
      onEnd: options.onSessionEnd,
    });
    return {
      message: (data, binary) => session.message(data, binary),
      closed: (code) => {
        open--;
        session.closed(code);
      },
    };
  });
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `ws://${host}:${listening.port}`,
    port: listening.port,
    transport: transport.name,
    capacity,
    sessions: () => open,
    close: () => listening.close(),
  };
}
