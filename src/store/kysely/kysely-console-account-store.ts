// The developer console's accounts (see console-account-store.ts): one implementation for SQLite and
// PostgreSQL, on Kysely (store-db.ts). Rows, tokens, email rules and refusals are in
// ../console-account-record.ts.
//
// createInvite and acceptInvite are `immediate` transactions: on SQLite the write lock is taken up
// front; on PostgreSQL they first lock console_invites against other writers (readers go through),
// as createFirstKey locks api_keys. Either way invites of one email and their uses run one after the
// other, in any processes: an email cannot get an account in two tenants, nor an invite two uses.
// acceptInvite also claims its invite with one conditional UPDATE (used_at_ms still null), so even
// without the lock two racing uses could not both win.
//
// The rest are single statements: a session is checked and touched by one conditional UPDATE, a
// failed sign-in counted (and the lock set) by one UPDATE whose CASEs read the row as it was, and a
// wrong password (or an attempt from an address) by one upsert whose CASEs do the same.
import { type ExpressionBuilder, sql } from 'kysely';

import {
  consoleUserOf,
  emailOrNull,
  emailTaken,
  newConsoleUserId,
  newCsrfToken,
  newToken,
  normalizeEmail,
  presentedTokenSha256,
  signInRecordOf,
} from '../console-account-record.js';
import {
  type ConsoleAccountStore,
  type ConsoleInvite,
  type ConsoleSession,
  type ConsoleSignInRecord,
  type ConsoleUser,
  type EndedConsoleRecords,
  type SessionLimits,
  SIGN_IN_WINDOW_MS,
  type SignInAttempts,
} from '../console-account-store.js';
import { immediate } from './immediate.js';
import { onPostgresDb } from './store-db.js';
import type { StoreDb, StoreSchema } from './store-schema.js';

export class KyselyConsoleAccountStore implements ConsoleAccountStore {
  constructor(private readonly db: StoreDb) {}

  async createInvite(tenant: string, email: string, nowMs: number, ttlMs: number): Promise<{ token: string; expiresAtMs: number }> {
    const address = normalizeEmail(email);
    const { token, sha256 } = newToken();
    const expiresAtMs = nowMs + ttlMs;
    await immediate(this.db, async (trx) => {
      await lockInvites(trx);
      const account = await trx.selectFrom('console_users').select('tenant').where('email', '=', address).executeTakeFirst();
      if (account && account.tenant !== tenant) throw emailTaken();
      await trx.deleteFrom('console_invites').where('email', '=', address).where('used_at_ms', 'is', null).execute();
      await trx
        .insertInto('console_invites')
        .values({ token_sha256: sha256, tenant, email: address, expires_at_ms: expiresAtMs, used_at_ms: null, created_at_ms: nowMs })
        .execute();
    });
    return { token, expiresAtMs };
  }

  async findInvite(token: string, nowMs: number): Promise<ConsoleInvite | null> {
    const sha256 = presentedTokenSha256(token);
    if (!sha256) return null;
    const row = await this.db
      .selectFrom('console_invites')
      .select(['tenant', 'email', 'expires_at_ms'])
      .where('token_sha256', '=', sha256)
      .where('used_at_ms', 'is', null)
      .where('expires_at_ms', '>', nowMs)
      .executeTakeFirst();
    return row ? { tenant: row.tenant, email: row.email, expiresAtMs: row.expires_at_ms } : null;
  }

  async acceptInvite(token: string, passwordHash: string, nowMs: number): Promise<ConsoleUser | null> {
    const sha256 = presentedTokenSha256(token);
    if (!sha256) return null;
    return immediate(this.db, async (trx) => {
      await lockInvites(trx);
      const invite = await trx
        .updateTable('console_invites')
        .set({ used_at_ms: nowMs })
        .where('token_sha256', '=', sha256)
        .where('used_at_ms', 'is', null)
        .where('expires_at_ms', '>', nowMs)
        .returning(['tenant', 'email'])
        .executeTakeFirst();
      if (!invite) return null;
      const existing = await trx.selectFrom('console_users').selectAll().where('email', '=', invite.email).executeTakeFirst();
      if (!existing) {
        const row = { id: newConsoleUserId(), tenant: invite.tenant, email: invite.email, created_at_ms: nowMs };
        await trx
          .insertInto('console_users')
          .values({ ...row, password_hash: passwordHash, failed_sign_ins: 0, locked_until_ms: null })
          .execute();
        return consoleUserOf(row);
      }
      // Not reachable while createInvite refuses such an email under the same lock; the throw rolls
      // the claim back rather than hand one tenant's account to another.
      if (existing.tenant !== invite.tenant) throw emailTaken();
      // A reset by invite: the new password, a clean slate, and every session signed out.
      await trx
        .updateTable('console_users')
        .set({ password_hash: passwordHash, failed_sign_ins: 0, locked_until_ms: null })
        .where('id', '=', existing.id)
        .execute();
      await trx.deleteFrom('console_sessions').where('user_id', '=', existing.id).execute();
      return consoleUserOf(existing);
    });
  }

  async signInRecord(email: string): Promise<ConsoleSignInRecord | null> {
    // An address createInvite would refuse has no account: null, as for any unknown one.
    const address = emailOrNull(email);
    if (address === null) return null;
    const row = await this.db.selectFrom('console_users').selectAll().where('email', '=', address).executeTakeFirst();
    return row ? signInRecordOf(row) : null;
  }

  async recordFailedSignIn(userId: string, nowMs: number, lockAfter: number, lockMs: number): Promise<number | null> {
    const row = await this.db
      .updateTable('console_users')
      .set((eb) => {
        const reached = eb(eb('failed_sign_ins', '+', 1), '>=', lockAfter);
        return {
          failed_sign_ins: eb
            .case()
            .when(reached)
            .then(0)
            .else(eb('failed_sign_ins', '+', 1))
            .end(),
          locked_until_ms: eb
            .case()
            .when(reached)
            .then(nowMs + lockMs)
            .else(eb.ref('locked_until_ms'))
            .end(),
        };
      })
      .where('id', '=', userId)
      .returning('locked_until_ms')
      .executeTakeFirst();
    const lockedUntilMs = row?.locked_until_ms ?? null;
    return lockedUntilMs !== null && lockedUntilMs > nowMs ? lockedUntilMs : null;
  }

  async recordSignIn(userId: string): Promise<void> {
    await this.db.updateTable('console_users').set({ failed_sign_ins: 0, locked_until_ms: null }).where('id', '=', userId).execute();
  }

  async createSession(userId: string, nowMs: number): Promise<{ token: string; csrfToken: string }> {
    const { token, sha256 } = newToken();
    const csrfToken = newCsrfToken();
    await this.db
      .insertInto('console_sessions')
      .values({ token_sha256: sha256, user_id: userId, csrf_token: csrfToken, created_at_ms: nowMs, last_seen_ms: nowMs })
      .execute();
    return { token, csrfToken };
  }

  async session(token: string, nowMs: number, limits: SessionLimits): Promise<ConsoleSession | null> {
    const sha256 = presentedTokenSha256(token);
    if (!sha256) return null;
    const idleSince = nowMs - limits.idleMs;
    const signedInSince = nowMs - limits.absoluteMs;
    // Within both limits, its last use moves to now (never back, should another process's clock lag).
    const live = await this.db
      .updateTable('console_sessions')
      .set((eb) => ({ last_seen_ms: eb.case().when('last_seen_ms', '<', nowMs).then(nowMs).else(eb.ref('last_seen_ms')).end() }))
      .where('token_sha256', '=', sha256)
      .where('last_seen_ms', '>', idleSince)
      .where('created_at_ms', '>', signedInSince)
      .returning(['user_id', 'csrf_token', 'created_at_ms'])
      .executeTakeFirst();
    if (!live) {
      await this.db.deleteFrom('console_sessions').where('token_sha256', '=', sha256).where(sessionEnded(nowMs, limits)).execute();
      return null;
    }
    const user = await this.db.selectFrom('console_users').select(['id', 'tenant', 'email', 'created_at_ms']).where('id', '=', live.user_id).executeTakeFirst();
    return user ? { user: consoleUserOf(user), csrfToken: live.csrf_token, createdAtMs: live.created_at_ms } : null;
  }

  async endSession(token: string): Promise<void> {
    const sha256 = presentedTokenSha256(token);
    if (sha256) await this.db.deleteFrom('console_sessions').where('token_sha256', '=', sha256).execute();
  }

  async endAllSessions(userId: string): Promise<number> {
    const { numDeletedRows } = await this.db.deleteFrom('console_sessions').where('user_id', '=', userId).executeTakeFirst();
    return Number(numDeletedRows);
  }

  async endOtherSessions(userId: string, keptToken: string): Promise<number> {
    const kept = presentedTokenSha256(keptToken);
    let others = this.db.deleteFrom('console_sessions').where('user_id', '=', userId);
    if (kept) others = others.where('token_sha256', '<>', kept);
    const { numDeletedRows } = await others.executeTakeFirst();
    return Number(numDeletedRows);
  }

  async countSignInAttempt(address: string, nowMs: number): Promise<SignInAttempts> {
    // An ended window starts again at this attempt; a window is never moved back (another process's clock may lag).
    const row = await this.db
      .insertInto('console_sign_in_attempts')
      .values({ address, window_start_ms: nowMs, attempts: 1 })
      .onConflict((oc) =>
        oc.column('address').doUpdateSet((eb) => {
          const ended = eb('console_sign_in_attempts.window_start_ms', '<=', nowMs - SIGN_IN_WINDOW_MS);
          return {
            window_start_ms: eb.case().when(ended).then(nowMs).else(eb.ref('console_sign_in_attempts.window_start_ms')).end(),
            attempts: eb
              .case()
              .when(ended)
              .then(1)
              .else(eb('console_sign_in_attempts.attempts', '+', 1))
              .end(),
          };
        }),
      )
      .returning(['window_start_ms', 'attempts'])
      .executeTakeFirstOrThrow();
    return { windowStartMs: row.window_start_ms, attempts: row.attempts };
  }

  async recordFailedPassword(subject: string, address: string, nowMs: number, lockAfter: number, lockMs: number): Promise<number | null> {
    const lockedAt = lockAfter <= 1 ? nowMs + lockMs : null;
    const row = await this.db
      .insertInto('console_password_failures')
      .values({ subject, address, failures: lockedAt === null ? 1 : 0, locked_until_ms: lockedAt, ends_at_ms: nowMs + lockMs })
      .onConflict((oc) =>
        oc.columns(['subject', 'address']).doUpdateSet((eb) => {
          // An ended pair counts from this failure; its end is never moved back (another process's clock may lag).
          const ended = eb('console_password_failures.ends_at_ms', '<=', nowMs);
          const count = eb
            .case()
            .when(ended)
            .then(1)
            .else(eb('console_password_failures.failures', '+', 1))
            .end();
          const reached = eb(count, '>=', lockAfter);
          return {
            failures: eb.case().when(reached).then(0).else(count).end(),
            locked_until_ms: eb
              .case()
              .when(reached)
              .then(nowMs + lockMs)
              .when(ended)
              .then(null)
              .else(eb.ref('console_password_failures.locked_until_ms'))
              .end(),
            ends_at_ms: eb
              .case()
              .when('console_password_failures.ends_at_ms', '<', nowMs + lockMs)
              .then(nowMs + lockMs)
              .else(eb.ref('console_password_failures.ends_at_ms'))
              .end(),
          };
        }),
      )
      .returning('locked_until_ms')
      .executeTakeFirstOrThrow();
    return row.locked_until_ms !== null && row.locked_until_ms > nowMs ? row.locked_until_ms : null;
  }

  async passwordLockedUntil(subject: string, address: string, nowMs: number): Promise<number | null> {
    const row = await this.db
      .selectFrom('console_password_failures')
      .select('locked_until_ms')
      .where('subject', '=', subject)
      .where('address', '=', address)
      .where('locked_until_ms', '>', nowMs)
      .executeTakeFirst();
    return row?.locked_until_ms ?? null;
  }

  async clearFailedPasswords(subject: string, address: string): Promise<void> {
    await this.db.deleteFrom('console_password_failures').where('subject', '=', subject).where('address', '=', address).execute();
  }

  async deleteEnded(nowMs: number, limits: SessionLimits): Promise<EndedConsoleRecords> {
    const invites = await this.db
      .deleteFrom('console_invites')
      .where((eb) => eb.or([eb('used_at_ms', 'is not', null), eb('expires_at_ms', '<=', nowMs)]))
      .executeTakeFirst();
    const sessions = await this.db.deleteFrom('console_sessions').where(sessionEnded(nowMs, limits)).executeTakeFirst();
    const windows = await this.db
      .deleteFrom('console_sign_in_attempts')
      .where('window_start_ms', '<=', nowMs - SIGN_IN_WINDOW_MS)
      .executeTakeFirst();
    const passwordFailures = await this.db.deleteFrom('console_password_failures').where('ends_at_ms', '<=', nowMs).executeTakeFirst();
    return {
      invites: Number(invites.numDeletedRows),
      sessions: Number(sessions.numDeletedRows),
      signInWindows: Number(windows.numDeletedRows),
      passwordFailures: Number(passwordFailures.numDeletedRows),
    };
  }

  async listUsers(tenant: string): Promise<ConsoleUser[]> {
    const rows = await this.db
      .selectFrom('console_users')
      .select(['id', 'tenant', 'email', 'created_at_ms'])
      .where('tenant', '=', tenant)
      .orderBy('created_at_ms')
      .orderBy('id')
      .execute();
    return rows.map(consoleUserOf);
  }
}

/** A session past its limits at `nowMs`: unused for idleMs, or signed in absoluteMs ago (the opposite of what `session` opens). */
function sessionEnded(nowMs: number, limits: SessionLimits) {
  return (eb: ExpressionBuilder<StoreSchema, 'console_sessions'>) =>
    eb.or([eb('last_seen_ms', '<=', nowMs - limits.idleMs), eb('created_at_ms', '<=', nowMs - limits.absoluteMs)]);
}

/** On PostgreSQL, excludes other writers of console_invites until COMMIT (SQLite's `begin immediate` already has). */
async function lockInvites(trx: StoreDb): Promise<void> {
  if (onPostgresDb(trx)) await sql`LOCK TABLE console_invites IN SHARE ROW EXCLUSIVE MODE`.execute(trx);
}
