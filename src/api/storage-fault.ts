// Failures of the service's own storage while it handles a request: the disk or quota is full, the data
// folder is read-only or not writable, the database cannot write. The request was fine; the service
// cannot keep what it would acknowledge. The contract answers these 503 with Retry-After (storage
// issues), never 500, and the routes acknowledge nothing half-written (they remove what they stored).
import type { ApiError } from './api-error.js';
import { serviceUnavailable } from './capacity.js';

/** System error codes of file operations that mean storage, not the request, failed. */
const SYSTEM_CODES = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'EIO', 'EMFILE', 'ENFILE']);
/** better-sqlite3's codes for a database that cannot be written (full disk, read-only file, I/O error). */
const SQLITE_CODES = /^SQLITE_(?:FULL|IOERR|READONLY|CANTOPEN)(?:_|$)/;
/** Disks do not empty themselves in seconds: a retry sooner would only fail again. */
const STORAGE_RETRY_AFTER_SECONDS = 30;

export function isStorageFault(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (SYSTEM_CODES.has(code) || SQLITE_CODES.test(code));
}

export function storageUnavailable(): ApiError {
  return serviceUnavailable(STORAGE_RETRY_AFTER_SECONDS, 'storage is unavailable and nothing was stored; retry after the Retry-After interval');
}
