// Storage faults (disk full, data folder or database not writable) are the contract's 503
// service_unavailable with Retry-After, logged as server faults; other system errors stay 500.
import t from 'tap';

import { mapError } from '../../src/api/error-mapping.js';
import { isStorageFault } from '../../src/api/storage-fault.js';

const withCode = (code: string) => Object.assign(new Error(`${code}: something at /data/blobs/uploads/direct-x.part`), { code });

t.test('file system and database storage faults are 503 service_unavailable with Retry-After', async (t) => {
  for (const code of ['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'EIO', 'SQLITE_FULL', 'SQLITE_IOERR_WRITE', 'SQLITE_READONLY', 'SQLITE_CANTOPEN']) {
    const { apiError, unexpected } = mapError(withCode(code));
    t.equal(apiError.status, 503, `${code} -> 503`);
    t.equal(apiError.code, 'service_unavailable', code);
    t.match(apiError.headers['retry-after'], /^[1-9]\d*$/, `${code}: Retry-After`);
    t.notMatch(apiError.message, /\/data|\.part|E[A-Z]+:/, `${code}: a fixed message`);
    t.equal(unexpected, true, `${code}: logged for the operator`);
  }
});

t.test('other errors are not storage faults', async (t) => {
  for (const error of [
    withCode('SQLITE_CONSTRAINT_UNIQUE'),
    withCode('SQLITE_BUSY'),
    withCode('ENOENT'),
    withCode('SQLITE_FULLY'),
    new Error('ENOSPC'),
    null,
  ]) {
    t.equal(isStorageFault(error), false, String((error as { code?: string } | null)?.code ?? error));
  }
  t.equal(mapError(withCode('ENOENT')).apiError.status, 500);
});
