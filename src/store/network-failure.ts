// Error codes of Node's sockets and resolver that mean a server (the database, the bucket) could
// not be reached or dropped the connection: the store is unavailable, the request was fine.
export const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'ERR_SOCKET_CONNECTION_TIMEOUT',
]);
