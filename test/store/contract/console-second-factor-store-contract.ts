// The ConsoleSecondFactorStore contract, run against every implementation (test/store/console-second-factor-store.test.ts):
// a TOTP secret begun, replaced while it waits, confirmed once, refused while in effect, sealed at rest
// (not in clear, bound to its account, unreadable under another master key); steps used once, in
// order, also across connections racing; recovery codes used once, stored hashed; pending sign-ins
// expiring and ended; the tenant's requirement. Each case gets a fresh, empty store.
import { createHash, randomBytes } from 'node:crypto';

import type { Test } from 'tap';

import type { ConsoleAccountStore } from '../../../src/store/console-account-store.js';
import { ConsoleSecondFactorError, type ConsoleSecondFactorStore } from '../../../src/store/console-second-factor-store.js';
import { refuses } from './refusal.js';

export type SecondFactorTable = 'console_totp' | 'console_recovery_codes' | 'console_pending_sign_ins';

export interface ConsoleSecondFactorStoreHarness {
  store: ConsoleSecondFactorStore;
  /** The accounts on the same database (second factors belong to accounts). */
  accounts: ConsoleAccountStore;
  /** The store on the same database under another master key. */
  withMasterKey(masterKey: Buffer): ConsoleSecondFactorStore;
  /** Another store on the same database through its own connection(s), as another process would have. */
  another(): Promise<ConsoleSecondFactorStore>;
  rawRows(table: SecondFactorTable): Promise<Array<Record<string, unknown>>>;
  /** Moves one account's sealed TOTP row onto another account, as a tampered database would. */
  copySealed(fromUserId: string, toUserId: string): Promise<void>;
  close(): Promise<void>;
}

export type MakeConsoleSecondFactorStore = (t: Test, masterKey: Buffer) => Promise<ConsoleSecondFactorStoreHarness>;

const T0 = Date.parse('2030-01-01T00:00:00Z');
const DAY = 24 * 60 * 60 * 1000;
const MINUTE = 60 * 1000;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const RECOVERY = /^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/;

export function consoleSecondFactorStoreContract(t: Test, name: string, make: MakeConsoleSecondFactorStore): void {
  const masterKey = randomBytes(32);
  const open = async (t: Test): Promise<ConsoleSecondFactorStoreHarness> => {
    const harness = await make(t, masterKey);
    t.teardown(() => harness.close());
    return harness;
  };
  const account = async (h: ConsoleSecondFactorStoreHarness, email: string, tenant = 'clinic-a') => {
    const { token } = await h.accounts.createInvite(tenant, email, T0, DAY);
    return (await h.accounts.acceptInvite(token, `hash-of-${email}`, T0))!.id;
  };
  const secret = () => randomBytes(20);

  t.test(`${name}: ConsoleSecondFactorStore contract`, async (t) => {
    t.test('a secret waits for its code, may be replaced while it waits, is confirmed once, then refused a replacement', async (t) => {
      const h = await open(t);
      const user = await account(h, 'gp@clinic.example');
      t.equal(await h.store.totp(user), null, 'none at first');
      t.equal(await h.store.confirmTotp(user, 100, T0), false, 'nothing to confirm');
      const first = secret();
      await h.store.beginTotp(user, first, T0);
      t.same(await h.store.totp(user), { secret: first, confirmedAtMs: null }, 'waiting');
      t.equal(await h.store.totpEnabled(user), false, 'not in effect while it waits');
      t.equal(await h.store.useTotpStep(user, 100), false, 'a waiting secret opens nothing');
      const second = secret();
      await h.store.beginTotp(user, second, T0 + 1);
      t.same(await h.store.totp(user), { secret: second, confirmedAtMs: null }, 'replaced while it waited');
      t.equal(await h.store.confirmTotp(user, 100, T0 + 2), true);
      t.same(await h.store.totp(user), { secret: second, confirmedAtMs: T0 + 2 }, 'in effect');
      t.equal(await h.store.totpEnabled(user), true);
      t.equal(await h.store.confirmTotp(user, 101, T0 + 3), false, 'confirmed once');
      await refuses(t, () => h.store.beginTotp(user, secret(), T0 + 4), ConsoleSecondFactorError, { kind: 'totp_enabled' }, 'in effect: not replaced');
      t.same((await h.store.totp(user))!.secret, second, 'still the confirmed one');
      t.equal(await h.store.removeTotp(user), true);
      t.equal(await h.store.totp(user), null, 'off');
      t.equal(await h.store.totpEnabled(user), false);
      t.equal(await h.store.removeTotp(user), false, 'nothing left to remove');
      t.equal(await h.store.useTotpStep(user, 200), false, 'off: no step opens anything');
    });

    t.test('steps: the confirming step counts as used; each later step once; never an earlier one', async (t) => {
      const h = await open(t);
      const user = await account(h, 'nurse@clinic.example');
      await h.store.beginTotp(user, secret(), T0);
      await h.store.confirmTotp(user, 1000, T0);
      t.equal(await h.store.useTotpStep(user, 1000), false, 'the confirming code again: a replay');
      t.equal(await h.store.useTotpStep(user, 1001), true);
      t.equal(await h.store.useTotpStep(user, 1001), false, 'the same step again: a replay');
      t.equal(await h.store.useTotpStep(user, 1000), false, 'an earlier step after a later one');
      t.equal(await h.store.useTotpStep(user, 1003), true);
      const other = await account(h, 'colleague@clinic.example');
      await h.store.beginTotp(other, secret(), T0);
      await h.store.confirmTotp(other, 999, T0);
      t.equal(await h.store.useTotpStep(other, 1003), true, "one account's steps are its own");
    });

    t.test('two connections racing to use one step: exactly one wins', async (t) => {
      const h = await open(t);
      const user = await account(h, 'race@clinic.example');
      await h.store.beginTotp(user, secret(), T0);
      await h.store.confirmTotp(user, 5000, T0);
      const stores = [h.store, await h.another(), await h.another()];
      for (let step = 5001; step < 5011; step++) {
        const wins = await Promise.all(stores.map((s) => s.useTotpStep(user, step)));
        t.equal(wins.filter(Boolean).length, 1, `step ${step}: one use`);
      }
    });

    t.test('at rest: the secret is sealed, bound to its account and to the master key', async (t) => {
      const h = await open(t);
      const user = await account(h, 'sealed@clinic.example');
      const other = await account(h, 'other@clinic.example');
      const plain = secret();
      await h.store.beginTotp(user, plain, T0);
      await h.store.beginTotp(other, secret(), T0);
      const rows = await h.rawRows('console_totp');
      const row = rows.find((r) => r.user_id === user)!;
      const stored = Buffer.concat(Object.values(row).map((v) => (Buffer.isBuffer(v) ? v : Buffer.from(String(v)))));
      t.equal(stored.indexOf(plain), -1, 'the secret is nowhere in the row');
      t.notOk(JSON.stringify(rows).includes(plain.toString('base64')), 'not as base64 either');
      await refuses(t, () => h.withMasterKey(randomBytes(32)).totp(user), ConsoleSecondFactorError, { kind: 'unreadable' }, 'another master key');
      await h.copySealed(user, other);
      await refuses(t, () => h.store.totp(other), ConsoleSecondFactorError, { kind: 'unreadable' }, "one account's sealed secret on another's row");
      t.same((await h.store.totp(user))!.secret, plain, 'its own row still opens');
    });

    t.test('recovery codes: shown once, stored hashed, each used once, replaced as a set, gone with TOTP', async (t) => {
      const h = await open(t);
      const user = await account(h, 'codes@clinic.example');
      await h.store.beginTotp(user, secret(), T0);
      await h.store.confirmTotp(user, 1, T0);
      const codes = await h.store.replaceRecoveryCodes(user, 10, T0);
      t.equal(codes.length, 10);
      t.ok(
        codes.every((c) => RECOVERY.test(c)),
        'xxxx-xxxx-xxxx-xxxx, base32',
      );
      t.equal(new Set(codes).size, 10, 'all different');
      t.equal(await h.store.recoveryCodesLeft(user), 10);
      const stored = JSON.stringify(await h.rawRows('console_recovery_codes'));
      t.ok(
        codes.every((c) => !stored.includes(c) && !stored.includes(c.replaceAll('-', ''))),
        'no code in clear',
      );
      const plain = codes[0].replaceAll('-', '');
      t.ok(
        (await h.rawRows('console_recovery_codes')).some((r) => Buffer.from(r.code_sha256 as Buffer).equals(createHash('sha256').update(plain).digest())),
        'their SHA-256',
      );
      t.equal(await h.store.useRecoveryCode(user, ` ${codes[0].toUpperCase()} `, T0), true, 'any case, spaces ignored');
      t.equal(await h.store.useRecoveryCode(user, codes[0], T0), false, 'once');
      t.equal(await h.store.useRecoveryCode(user, codes[1].replaceAll('-', ''), T0), true, 'without its dashes');
      t.equal(await h.store.useRecoveryCode(user, 'not-a-code', T0), false);
      t.equal(await h.store.recoveryCodesLeft(user), 8);
      const other = await account(h, 'someone@clinic.example');
      t.equal(await h.store.useRecoveryCode(other, codes[2], T0), false, "another account's code");
      const fresh = await h.store.replaceRecoveryCodes(user, 10, T0 + 1);
      t.equal(await h.store.useRecoveryCode(user, codes[2], T0 + 1), false, 'the old set is gone');
      t.equal(await h.store.recoveryCodesLeft(user), 10);
      await h.store.removeTotp(user);
      t.equal(await h.store.useRecoveryCode(user, fresh[0], T0 + 2), false, 'gone with TOTP');
      t.equal(await h.store.recoveryCodesLeft(user), 0);
    });

    t.test('pending sign-ins: a one-time token, stored hashed, until its ttl; ended; expired ones swept', async (t) => {
      const h = await open(t);
      const user = await account(h, 'pending@clinic.example');
      const token = await h.store.createPendingSignIn(user, T0, 5 * MINUTE);
      t.match(token, TOKEN);
      t.match(await h.store.pendingSignIn(token, T0 + 5 * MINUTE - 1), { id: user, email: 'pending@clinic.example', tenant: 'clinic-a' }, 'until its last ms');
      t.equal(await h.store.pendingSignIn(token, T0 + 5 * MINUTE), null, 'expired');
      t.equal(await h.store.pendingSignIn('not a token', T0), null);
      t.notOk(JSON.stringify(await h.rawRows('console_pending_sign_ins')).includes(token), 'not kept in clear');
      const second = await h.store.createPendingSignIn(user, T0 + 6 * MINUTE, 5 * MINUTE);
      t.equal((await h.rawRows('console_pending_sign_ins')).length, 1, 'the expired one was swept');
      await h.store.endPendingSignIn(second);
      t.equal(await h.store.pendingSignIn(second, T0 + 6 * MINUTE), null, 'ended');
      await h.store.endPendingSignIn(second);
    });

    t.test('deleteExpiredPendingSignIns: the expired ones only (the sweeper)', async (t) => {
      const h = await open(t);
      const user = await account(h, 'swept@clinic.example');
      await h.store.createPendingSignIn(user, T0, MINUTE);
      await h.store.createPendingSignIn(user, T0, MINUTE);
      const waiting = await h.store.createPendingSignIn(user, T0, 5 * MINUTE);
      t.equal(await h.store.deleteExpiredPendingSignIns(T0 + MINUTE - 1), 0, 'none expired yet');
      t.equal(await h.store.deleteExpiredPendingSignIns(T0 + MINUTE), 2, 'expired at their expiry');
      t.equal((await h.rawRows('console_pending_sign_ins')).length, 1);
      t.match(await h.store.pendingSignIn(waiting, T0 + MINUTE), { id: user }, 'an unexpired one still opens the code form');
      t.equal(await h.store.deleteExpiredPendingSignIns(T0 + MINUTE), 0);
    });

    t.test("a tenant's requirement: off by default, on, off again; per tenant", async (t) => {
      const h = await open(t);
      t.equal(await h.store.totpRequired('clinic-a'), false);
      await h.store.setTotpRequired('clinic-a', true, T0);
      t.equal(await h.store.totpRequired('clinic-a'), true);
      t.equal(await h.store.totpRequired('clinic-b'), false, 'another tenant');
      await h.store.setTotpRequired('clinic-a', true, T0 + 1);
      t.equal(await h.store.totpRequired('clinic-a'), true, 'set twice');
      await h.store.setTotpRequired('clinic-a', false, T0 + 2);
      t.equal(await h.store.totpRequired('clinic-a'), false);
    });
  });
}
