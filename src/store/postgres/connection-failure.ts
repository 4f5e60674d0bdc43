// Which errors of `pg` mean the database, not the statement, failed: the request may be retried once
// the server is back. Everything else (a constraint, a bad statement) stays the error it is.
//
// SQLSTATE classes 08 (connection exception) and 57P (operator intervention: the server shutting
// down, crashed, or not accepting connections yet), 53300 (too many connections); socket errors
// by their system codes; and pg's own messages for a connection that ended, could not be had
// within the pool's connection timeout, or did not answer within the query timeout (no code).
import { NETWORK_ERROR_CODES } from '../network-failure.js';

const SQLSTATE = /^(?:08\d{3}|57P0[1-4]|53300)$/;
const MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /^Query read timeout$/,
  /^Client has encountered a connection error/,
  /^Client was closed and is not queryable$/,
];

export function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (SQLSTATE.test(code) || NETWORK_ERROR_CODES.has(code))) return true;
  if (error instanceof AggregateError) return error.errors.some(isConnectionFailure);
  return MESSAGES.some((pattern) => pattern.test(error.message));
}
