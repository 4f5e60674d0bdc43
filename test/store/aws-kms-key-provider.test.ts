// AwsKmsKeyProvider through the real @aws-sdk/client-kms over HTTP, against the loopback KMS stand-in
// (test/helpers/kms-server.ts; real AWS KMS is not reachable here): a data key wrapped under the
// active key names it as `kms:<KeyId>` and unwraps only with its context; a previous key still
// unwraps; KMS's refusals and silence become this layer's errors (unavailable: a 503 at the edge), and
// it recovers; with a local key in the chain, keys wrapped locally before keep opening.
import { randomBytes } from 'node:crypto';

import t from 'tap';

import { KeyProviderChain } from '../../src/store/key-provider-chain.js';
import { AwsKmsKeyProvider } from '../../src/store/kms/aws-kms-key-provider.js';
import { KeyServiceUnavailableError } from '../../src/store/kms/kms-errors.js';
import { LocalKeyProvider, masterKeyIdOf } from '../../src/store/master-keys.js';
import { SealingError } from '../../src/store/sealing-error.js';
import { isStoreUnavailable } from '../../src/store/store-unavailable-error.js';
import { startKmsServer } from '../helpers/kms-server.js';

t.test('wraps under the active KMS key, bound to its context', async (t) => {
  const kms = await startKmsServer();
  t.teardown(() => kms.close());
  const active = kms.createKey();
  const provider = new AwsKmsKeyProvider([active], kms);
  t.teardown(() => provider.close());

  const dataKey = randomBytes(32);
  const wrapped = await provider.wrap(dataKey, 'tenant-a/v1');
  t.equal(wrapped.masterKeyId, `kms:${active}`, 'the row names the KMS key');
  t.equal(provider.activeKeyId, `kms:${active}`);
  t.notOk(wrapped.wrapped.includes(dataKey), 'the data key is not in the wrapped form');
  t.same(await provider.unwrap(wrapped, 'tenant-a/v1'), dataKey);
  t.same(kms.calls, { Encrypt: 1, Decrypt: 1 }, 'KMS did the wrapping');

  await t.rejects(provider.unwrap(wrapped, 'tenant-b/v1'), SealingError, 'another tenant: refused');
  await t.rejects(provider.unwrap(wrapped, 'tenant-a/v2'), /InvalidCiphertextException/, 'another version: refused by KMS');
  const changed = Buffer.from(wrapped.wrapped);
  changed.writeUInt8(changed.readUInt8(changed.length - 1) ^ 1, changed.length - 1);
  await t.rejects(provider.unwrap({ ...wrapped, wrapped: changed }, 'tenant-a/v1'), SealingError, 'changed bytes: refused');
  const another = new AwsKmsKeyProvider([kms.createKey()], kms);
  t.teardown(() => another.close());
  await t.rejects(another.unwrap(wrapped, 'tenant-a/v1'), new RegExp(`kms:${active}`), 'names the key it lacks');
});

t.test('an alias wraps; a previous key still unwraps; a row naming the wrong key is refused', async (t) => {
  const kms = await startKmsServer();
  t.teardown(() => kms.close());
  const old = kms.createKey();
  kms.createKey('svc-stt');
  const before = new AwsKmsKeyProvider([old], kms);
  const after = new AwsKmsKeyProvider(['alias/svc-stt', old], kms);
  t.teardown(() => {
    before.close();
    after.close();
  });
  const dataKey = randomBytes(32);
  const underOld = await before.wrap(dataKey, 'tenant-a/v1');
  t.ok(after.has(`kms:${old}`));
  t.same(await after.unwrap(underOld, 'tenant-a/v1'), dataKey, 'the previous key unwraps');
  const underAlias = await after.wrap(dataKey, 'tenant-a/v1');
  t.equal(underAlias.masterKeyId, 'kms:alias/svc-stt');
  t.same(await after.unwrap(underAlias, 'tenant-a/v1'), dataKey);
  // KMS checks the blob is the named key's: a row claiming the old key for the alias's blob is refused.
  await t.rejects(after.unwrap({ ...underAlias, masterKeyId: `kms:${old}` }, 'tenant-a/v1'), /IncorrectKeyException/);
});

t.test("KMS's refusals and silence are this layer's errors, and it recovers", async (t) => {
  const kms = await startKmsServer();
  t.teardown(() => kms.close());
  const provider = new AwsKmsKeyProvider([kms.createKey()], kms);
  t.teardown(() => provider.close());
  const wrapped = await provider.wrap(randomBytes(32), 'tenant-a/v1');

  for (const type of ['AccessDeniedException', 'DisabledException', 'ThrottlingException', 'KMSInternalException']) {
    kms.failWith(type);
    const error = await provider.wrap(randomBytes(32), 'tenant-a/v2').catch((caught: unknown) => caught);
    t.type(error, KeyServiceUnavailableError, `${type}: the key service is unavailable`);
    t.ok(isStoreUnavailable(error), `${type}: mapped as a store outage (503)`);
    t.match((error as Error).message, type, 'names what KMS answered');
  }
  kms.failWith('NotFoundException');
  await t.rejects(provider.unwrap(wrapped, 'tenant-a/v1'), SealingError, 'a key gone for good is a sealing failure');
  kms.failWith(null);

  await kms.stop();
  const down = await provider.unwrap(wrapped, 'tenant-a/v1').catch((caught: unknown) => caught);
  t.type(down, KeyServiceUnavailableError, 'KMS not answering: unavailable');
  t.notMatch((down as Error).message, /[A-Za-z0-9+/]{40,}/, 'no key material in the message');
  await kms.start();
  t.equal((await provider.unwrap(wrapped, 'tenant-a/v1')).length, 32, 'back: it unwraps again');
});

t.test('a chain with KMS active keeps opening data keys the local key wrapped', async (t) => {
  const kms = await startKmsServer();
  t.teardown(() => kms.close());
  const arn = kms.createKey();
  const master = randomBytes(32);
  const local = new LocalKeyProvider([master]);
  const dataKey = randomBytes(32);
  const underLocal = await local.wrap(dataKey, 'tenant-a/v1');
  const chain = new KeyProviderChain(new AwsKmsKeyProvider([arn], kms), [local]);
  t.teardown(() => chain.close());
  t.equal(chain.activeKeyId, `kms:${arn}`);
  t.ok(chain.has(masterKeyIdOf(master)) && chain.has(`kms:${arn}`));
  t.notOk(chain.has('kms:alias/other'));
  t.same(await chain.unwrap(underLocal, 'tenant-a/v1'), dataKey, 'the local key unwraps its own');
  const underKms = await chain.wrap(dataKey, 'tenant-a/v1');
  t.equal(underKms.masterKeyId, `kms:${arn}`, 'new wrapping is KMS');
  t.same(await chain.unwrap(underKms, 'tenant-a/v1'), dataKey);
  await t.rejects(chain.unwrap({ ...underKms, masterKeyId: 'kms:alias/other' }, 'tenant-a/v1'), /kms:alias\/other/);
});
