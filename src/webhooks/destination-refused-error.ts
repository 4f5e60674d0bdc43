// A webhook destination the rules do not allow. The reason reaches clients (a 422 message) and the
// delivery log, so it is a fixed phrase: echoing the URL, host or an address would let a client probe
// internal DNS through our error messages.

/** `reason` is safe to show a client: it never echoes the URL, the host name or an address. */
export class DestinationRefusedError extends Error {
  constructor(readonly reason: string) {
    super(`webhook destination refused: ${reason}`);
    this.name = 'DestinationRefusedError';
  }
}
