// The console's second factor (see ../console-second-factor-store.ts): one implementation for SQLite
// and PostgreSQL, on Kysely (store-db.ts). Sealing, recovery codes and their hashes are in
// ../console-second-factor-record.ts.
//
// Every use is one conditional statement: a step is used by an UPDATE that moves last_step forward
// only past it, a recovery code by an UPDATE of an unused one, a secret confirmed by an UPDATE of an
// unconfirmed one; PostgreSQL re-checks the WHERE on a row a concurrent writer changed and SQLite
// writes under its lock, so of two racing uses of one code, in any processes, one wins. The master key
// is read when a secret is first sealed or opened (commands that never do so never create its file).
import { consoleUserOf, newToken, presentedTokenSha256 } from '../console-account-record.js';
import type { ConsoleUser } from '../console-account-store.js';
import { newRecoveryCode, openTotpSecret, sealTotpSecret, totpSealingKey, typedRecoveryCodeSha256 } from '../console-second-factor-record.js';
import { ConsoleSecondFactorError, type ConsoleSecondFactorStore, type TotpEnrolment } from '../console-second-factor-store.js';
import { immediate } from './immediate.js';
import type { StoreDb } from './store-schema.js';

export class KyselyConsoleSecondFactorStore implements ConsoleSecondFactorStore {
  private sealingKeyCache: Buffer[] | null = null;

  constructor(
    private readonly db: StoreDb,
    private readonly masterKey: () => Buffer,
    /** Master keys a rotation still knows: they open what they sealed, never seal. */
    private readonly previousMasterKeys: () => readonly Buffer[] = () => [],
  ) {}

  async resealUnderActiveKey(): Promise<number> {
    let resealed = 0;
    for (const row of await this.db.selectFrom('console_totp').selectAll().orderBy('user_id').execute()) {
      const { secret, keyIndex } = openTotpSecret(this.sealingKeys(), row);
      if (keyIndex === 0) continue;
      const sealed = sealTotpSecret(this.sealingKeys()[0]!, row.user_id, secret);
      secret.fill(0);
      const { numUpdatedRows } = await this.db
        .updateTable('console_totp')
        .set(sealed)
        .where('user_id', '=', row.user_id)
        .where('iv', '=', row.iv)
        .executeTakeFirst();
      resealed += Number(numUpdatedRows);
    }
    return resealed;
  }

  async totp(userId: string): Promise<TotpEnrolment | null> {
    const row = await this.db.selectFrom('console_totp').selectAll().where('user_id', '=', userId).executeTakeFirst();
    return row ? { secret: openTotpSecret(this.sealingKeys(), row).secret, confirmedAtMs: row.confirmed_at_ms } : null;
  }

  async totpEnabled(userId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('console_totp')
      .select('user_id')
      .where('user_id', '=', userId)
      .where('confirmed_at_ms', 'is not', null)
      .executeTakeFirst();
    return row !== undefined;
  }

  async beginTotp(userId: string, secret: Buffer, nowMs: number): Promise<void> {
    const sealed = sealTotpSecret(this.sealingKeys()[0]!, userId, secret);
    // One statement: a waiting secret is replaced, one in effect is left as it is (and reported).
    const written = await this.db
      .insertInto('console_totp')
      .values({ user_id: userId, ...sealed, confirmed_at_ms: null, last_step: null, created_at_ms: nowMs })
      .onConflict((oc) =>
        oc
          .column('user_id')
          .doUpdateSet({ ...sealed, created_at_ms: nowMs })
          .where('console_totp.confirmed_at_ms', 'is', null),
      )
      .executeTakeFirst();
    if (Number(written.numInsertedOrUpdatedRows ?? 0n) === 0) {
      throw new ConsoleSecondFactorError('totp_enabled', 'this account already has TOTP turned on: turn it off first');
    }
  }

  async confirmTotp(userId: string, step: number, nowMs: number): Promise<boolean> {
    const { numUpdatedRows } = await this.db
      .updateTable('console_totp')
      .set({ confirmed_at_ms: nowMs, last_step: step })
      .where('user_id', '=', userId)
      .where('confirmed_at_ms', 'is', null)
      .executeTakeFirst();
    return numUpdatedRows > 0n;
  }

  async useTotpStep(userId: string, step: number): Promise<boolean> {
    const { numUpdatedRows } = await this.db
      .updateTable('console_totp')
      .set({ last_step: step })
      .where('user_id', '=', userId)
      .where('confirmed_at_ms', 'is not', null)
      .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
      .executeTakeFirst();
    return numUpdatedRows > 0n;
  }

  async removeTotp(userId: string): Promise<boolean> {
    return immediate(this.db, async (trx) => {
      await trx.deleteFrom('console_recovery_codes').where('user_id', '=', userId).execute();
      const { numDeletedRows } = await trx.deleteFrom('console_totp').where('user_id', '=', userId).executeTakeFirst();
      return numDeletedRows > 0n;
    });
  }

  async replaceRecoveryCodes(userId: string, count: number, nowMs: number): Promise<string[]> {
    const codes = Array.from({ length: count }, () => newRecoveryCode());
    await immediate(this.db, async (trx) => {
      await trx.deleteFrom('console_recovery_codes').where('user_id', '=', userId).execute();
      if (codes.length > 0) {
        await trx
          .insertInto('console_recovery_codes')
          .values(codes.map((c) => ({ user_id: userId, code_sha256: c.sha256, used_at_ms: null, created_at_ms: nowMs })))
          .execute();
      }
    });
    return codes.map((c) => c.code);
  }

  async useRecoveryCode(userId: string, code: string, nowMs: number): Promise<boolean> {
    const sha256 = typedRecoveryCodeSha256(code);
    if (!sha256) return false;
    const { numUpdatedRows } = await this.db
      .updateTable('console_recovery_codes')
      .set({ used_at_ms: nowMs })
      .where('user_id', '=', userId)
      .where('code_sha256', '=', sha256)
      .where('used_at_ms', 'is', null)
      .executeTakeFirst();
    return numUpdatedRows > 0n;
  }

  async recoveryCodesLeft(userId: string): Promise<number> {
    const row = await this.db
      .selectFrom('console_recovery_codes')
      .select((eb) => eb.fn.countAll<number | string>().as('left'))
      .where('user_id', '=', userId)
      .where('used_at_ms', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.left);
  }

  async createPendingSignIn(userId: string, nowMs: number, ttlMs: number): Promise<string> {
    await this.deleteExpiredPendingSignIns(nowMs);
    const { token, sha256 } = newToken();
    await this.db
      .insertInto('console_pending_sign_ins')
      .values({ token_sha256: sha256, user_id: userId, expires_at_ms: nowMs + ttlMs, created_at_ms: nowMs })
      .execute();
    return token;
  }

  async pendingSignIn(token: string, nowMs: number): Promise<ConsoleUser | null> {
    const sha256 = presentedTokenSha256(token);
    if (!sha256) return null;
    const row = await this.db
      .selectFrom('console_pending_sign_ins')
      .innerJoin('console_users', 'console_users.id', 'console_pending_sign_ins.user_id')
      .select(['console_users.id', 'console_users.tenant', 'console_users.email', 'console_users.created_at_ms'])
      .where('console_pending_sign_ins.token_sha256', '=', sha256)
      .where('console_pending_sign_ins.expires_at_ms', '>', nowMs)
      .executeTakeFirst();
    return row ? consoleUserOf(row) : null;
  }

  async endPendingSignIn(token: string): Promise<void> {
    const sha256 = presentedTokenSha256(token);
    if (sha256) await this.db.deleteFrom('console_pending_sign_ins').where('token_sha256', '=', sha256).execute();
  }

  async deleteExpiredPendingSignIns(nowMs: number): Promise<number> {
    const { numDeletedRows } = await this.db.deleteFrom('console_pending_sign_ins').where('expires_at_ms', '<=', nowMs).executeTakeFirst();
    return Number(numDeletedRows);
  }

  async totpRequired(tenant: string): Promise<boolean> {
    const row = await this.db.selectFrom('console_tenant_settings').select('totp_required').where('tenant', '=', tenant).executeTakeFirst();
    return row?.totp_required === 1;
  }

  async setTotpRequired(tenant: string, required: boolean, nowMs: number): Promise<void> {
    const value = required ? 1 : 0;
    await this.db
      .insertInto('console_tenant_settings')
      .values({ tenant, totp_required: value, updated_at_ms: nowMs })
      .onConflict((oc) => oc.column('tenant').doUpdateSet({ totp_required: value, updated_at_ms: nowMs }))
      .execute();
  }

  /** The active master key's sealing key first. */
  private sealingKeys(): Buffer[] {
    return (this.sealingKeyCache ??= [this.masterKey(), ...this.previousMasterKeys()].map(totpSealingKey));
  }
}
