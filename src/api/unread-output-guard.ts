// Bounds what one connection may leave unread. Without it, a client that pipelines requests and never
// reads the answers makes the server hold them all: Node's HTTP server parses every request in a chunk
// it has read (about 1,400 small GETs fit in one 64 KiB read) and queues one ServerResponse per
// request behind the one being written, each buffering its whole output (OutgoingMessage's
// outputData, unbounded). Node pauses reading only after the chunk is parsed, and in practice not
// even then: 2,000 pipelined requests on one socket were all answered into memory (8 such sockets
// on GET /v1/openapi.json held ~60 MB, and were never closed).
//
// Node's own options do not cover it: `highWaterMark` only moves the point where Node would pause
// reading (after the chunk); `maxRequestsPerSocket` counts a connection's requests over its whole
// life, not those in progress, and refuses with a bare 503; `server.timeout` (inactivity) cannot tell
// a stalled write from a long poll waiting quietly, and `requestTimeout` is off because uploads have
// their own rate rules. So the guard, the first onRequest hook, closes a connection when
// (a) a request arrives while `maxPipelinedRequests` answers on it are unfinished,
// (b) a request arrives while more than `maxUnreadBytes` of earlier answers wait to be read, or
// (c) answers are waiting and the client has taken no byte of them for `unreadTimeoutMs`.
// A client that pipelines and does not read has no use for an error answer (it would queue too), so
// the connection is closed without one. Limits depend on the route (public ones are the tightest).
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

import type { FastifyReply, FastifyRequest } from 'fastify';

import type { ConnectionLimits } from '../config/service-config.js';
import { requiresAuthentication } from './authenticate.js';

interface ConnectionState {
  /** Answers of this connection not yet handed to the kernel, with the limits of their routes. */
  unfinished: Map<ServerResponse, ConnectionLimits>;
  lastUnreadBytes: number;
  lastQueuedInKernelWrite: number;
  lastProgressAt: number;
}

export class UnreadOutputGuard {
  private readonly connections = new Map<Socket, ConnectionState>();
  private timer: NodeJS.Timeout | null = null;
  private readonly tickMs: number;

  constructor(
    private readonly limits: { authenticated: ConnectionLimits; public: ConnectionLimits },
    private readonly now: () => number = Date.now,
  ) {
    // A stalled connection is closed within a quarter of its timeout after the timeout.
    const shortest = Math.min(limits.authenticated.unreadTimeoutMs, limits.public.unreadTimeoutMs);
    this.tickMs = Math.max(50, Math.min(1000, Math.floor(shortest / 4)));
  }

  /** The first onRequest hook: admits the request, or closes its connection and drops it. */
  readonly onRequest = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    const socket = request.raw.socket;
    if (socket.destroyed) return drop(reply);
    const limits = requiresAuthentication(request) ? this.limits.authenticated : this.limits.public;
    const state = this.stateOf(socket);
    if (state.unfinished.size >= limits.maxPipelinedRequests || unreadBytes(socket, state) > limits.maxUnreadBytes) {
      socket.destroy();
      return drop(reply);
    }
    const response = reply.raw;
    state.unfinished.set(response, limits);
    const settle = () => state.unfinished.delete(response);
    // 'finish': the whole answer is in the kernel's hands; 'close': the connection or answer ended.
    response.once('finish', settle);
    response.once('close', settle);
    done();
  };

  /** Stops the watchdog (the server is closing; its connections go with it). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.connections.clear();
  }

  private stateOf(socket: Socket): ConnectionState {
    let state = this.connections.get(socket);
    if (!state) {
      state = { unfinished: new Map(), lastUnreadBytes: 0, lastQueuedInKernelWrite: 0, lastProgressAt: this.now() };
      this.connections.set(socket, state);
      socket.once('close', () => {
        this.connections.delete(socket);
        if (this.connections.size === 0) this.stopTimer();
      });
      this.timer ??= setInterval(() => this.closeStalled(), this.tickMs).unref();
    }
    return state;
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private closeStalled(): void {
    const now = this.now();
    for (const [socket, state] of this.connections) {
      const unread = unreadBytes(socket, state);
      const inKernelWrite = queuedInKernelWrite(socket);
      // Progress: less is waiting than at the last look (counting the bytes libuv still has to hand
      // to the kernel, which shrink while one large write is taken piece by piece), or nothing is.
      if (unread === 0 || unread < state.lastUnreadBytes || inKernelWrite < state.lastQueuedInKernelWrite) state.lastProgressAt = now;
      state.lastUnreadBytes = unread;
      state.lastQueuedInKernelWrite = inKernelWrite;
      if (unread > 0 && now - state.lastProgressAt >= timeoutOf(state)) socket.destroy();
    }
  }
}

/**
 * Bytes answered but not yet taken by the client: the socket's write buffer (the answer being
 * written) plus the output of answers queued behind it (they have no socket yet).
 */
function unreadBytes(socket: Socket, state: ConnectionState): number {
  let bytes = socket.writableLength;
  for (const response of state.unfinished.keys()) if (!response.socket) bytes += response.writableLength;
  return bytes;
}

/**
 * What libuv still holds of the write in progress. Not public API (the handle's `writeQueueSize`),
 * read defensively: without it, progress inside one large write is only seen when the write ends.
 */
function queuedInKernelWrite(socket: Socket): number {
  const size = (socket as unknown as { _handle?: { writeQueueSize?: unknown } })._handle?.writeQueueSize;
  return typeof size === 'number' ? size : 0;
}

/** The tightest timeout among the routes with answers still waiting on this connection. */
function timeoutOf(state: ConnectionState): number {
  let timeout = Infinity;
  for (const limits of state.unfinished.values()) timeout = Math.min(timeout, limits.unreadTimeoutMs);
  return timeout;
}

/** Leaves the request unanswered: its connection is gone. */
function drop(reply: FastifyReply): void {
  reply.hijack();
}
