// How a connection is closed after its last answer. Node destroys the socket as soon as an answer
// marked `connection: close` is written (socket.destroySoon). When the client is still sending — a
// request refused before its body was read: an upload over the limit, a request without Host — the
// kernel answers those bytes with a reset, and a reset makes the client's kernel drop the answer it
// had received but not yet read (Linux; 42 of 300 refused 3.6 MB requests lost their 400 this way,
// found by test/adversarial/fuzz-routes.test.ts). So the connection closes the way servers have long
// closed it ("lingering close"): the answer and a FIN first, then whatever the client still sends is
// read and discarded until it closes its side, or LINGER_MS pass.
import type { Socket } from 'node:net';

/** How long a closing connection keeps reading what the client still sends. */
export const LINGER_MS = 2_000;

export function lingeringClose(socket: Socket, lingerMs = LINGER_MS): void {
  if (socket.destroyed) return;
  const timer = setTimeout(() => socket.destroy(), lingerMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  // The client has read the answer and closed: nothing more to wait for.
  socket.once('end', () => socket.destroy());
  socket.end();
  socket.resume();
}
