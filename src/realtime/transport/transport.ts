// The realtime listener's transport seam: a WebSocket server reduced to what the session protocol
// needs (accept on a path, receive text and binary frames, send text, see backpressure, close with a
// code). uWebSockets.js serves where its binary loads (Node 16/18/20 on Linux and macOS); `ws`
// serves everywhere else. Both pass the same protocol tests (test/realtime/).

/** One accepted connection, as the session sees it. */
export interface RealtimeConnection {
  /** Sends a text frame; false when the frame could not be queued (the socket is closed or full). */
  send(text: string): boolean;
  /** Bytes queued for the client and not yet written: what a client that does not read builds up. */
  bufferedBytes(): number;
  /** Closes with a WebSocket close code and a short reason (at most 123 bytes). Idempotent. */
  close(code: number, reason: string): void;
}

/** What a session does with its connection's traffic. */
export interface ConnectionHandlers {
  /** `data` is only valid during the call: copy what must outlive it. */
  message(data: Uint8Array, binary: boolean): void;
  /** The connection is gone (closed by either side, or dropped). Called once. */
  closed(code: number): void;
}

export interface TransportLimits {
  /**
   * Largest frame accepted; a larger one closes the connection with 1009 FRAME_TOO_BIG. The
   * libraries' own limit is set at HARD_FRAME_FACTOR times it: past that they cut the connection
   * without reading the frame (1006).
   */
  maxFrameBytes: number;
  /** Queued outgoing bytes beyond which the connection is closed (the client does not read). */
  maxBufferedBytes: number;
  /** Seconds without any frame before the connection is closed. */
  idleSeconds: number;
}

export interface ListeningTransport {
  port: number;
  close(): Promise<void>;
}

export type TransportName = 'uws' | 'ws';

export interface RealtimeTransport {
  readonly name: TransportName;
  listen(
    host: string,
    port: number,
    paths: readonly string[],
    limits: TransportLimits,
    accept: (connection: RealtimeConnection) => ConnectionHandlers,
  ): Promise<ListeningTransport>;
}

export const HARD_FRAME_FACTOR = 4;

/** Close codes the transports use themselves (RFC 6455). */
export const CLOSE_TOO_BIG = 1009;
export const CLOSE_GOING_AWAY = 1001;
/** Outgoing buffer full: the client does not read its events (the connection is cut, not closed politely). */
export const CLOSE_BACKPRESSURE = 4430;

/** The code of a bind uWebSockets.js refused: it says only that it failed, never why. */
export const UWS_LISTEN_FAILED = 'EUWSLISTEN';
