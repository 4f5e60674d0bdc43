// The keys page: list, create (the key shown once), revoke (after its confirmation page), rotate (a
// new key with the old one's terms, shown once; the old one revoked after the overlap the user picks),
// and a key's retention and default language. Another tenant's key id is answered as an unknown one.
// A change done answers 303 to /keys with its outcome in a one-time flash (console-flash.ts): a
// reload shows the page, and a new key is shown that once. A refusal answers with the page and its status.
import type { FastifyInstance } from 'fastify';

import { isKeyStoreError } from '../store/key-store-error.js';
import { type ConsoleContext, type Form, html } from './console-context.js';
import type { Notice } from './console-layout.js';
import { keyRevokePage, REVOKE_CONFIRMATION } from './key-revoke-page.js';
import { type CreatedKey, keysPage, ROTATION_OVERLAPS, utcMinute } from './keys-page.js';

const KEYS = '/keys';

export function registerKeyRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  app.get('/keys', async (request, reply) => {
    const session = await ctx.signedIn(request, reply);
    if (!session) return reply;
    const flash = ctx.flash<CreatedKey>(request, reply, KEYS);
    return html(reply, keysPage(ctx.pageUser(session), await ctx.deps.keys.list(session.user.tenant), flash?.shown ?? null, flash?.notice ?? null));
  });
  // A change's address opened as a page (typed, or a reload after a refusal): the keys page, not a 404.
  for (const action of ['rotate', 'settings']) app.get(`/keys/:id/${action}`, async (_request, reply) => reply.code(303).header('location', KEYS).send());
  app.post('/keys', async (request, reply) => {
    const session = await ctx.change(request, reply);
    if (!session) return reply;
    // The operator's terms of the tenant's keys go to the new one (a console user cannot grant themselves more).
    const created = await ctx.deps.keys.createForTenant(session.user.tenant);
    ctx.audit(request, session, 'key_created', { keyId: created.record.id });
    const shown: CreatedKey = { id: created.record.id, key: created.key };
    return ctx.done(request, reply, KEYS, { notice: { kind: 'ok', text: `Key ${created.record.id} created.` }, shown });
  });
  // Revoking cannot be undone: the list links here, and only this page's form (with the confirmation field) revokes.
  app.get('/keys/:id/revoke', async (request, reply) => {
    const session = await ctx.signedIn(request, reply);
    if (!session) return reply;
    const { id } = request.params as { id: string };
    const key = await ctx.deps.keys.get(id);
    if (!key || key.tenant !== session.user.tenant || key.revokedAt !== null) {
      return html(
        reply.code(404),
        keysPage(ctx.pageUser(session), await ctx.deps.keys.list(session.user.tenant), null, { kind: 'error', text: 'No such key.' }),
      );
    }
    return html(reply, keyRevokePage(ctx.pageUser(session), key));
  });
  app.post('/keys/:id/revoke', async (request, reply) => {
    const session = await ctx.change(request, reply);
    if (!session) return reply;
    const { id } = request.params as { id: string };
    const key = await ctx.deps.keys.get(id);
    // Another tenant's key is answered as an unknown one.
    if (!key || key.tenant !== session.user.tenant) {
      return html(
        reply.code(404),
        keysPage(ctx.pageUser(session), await ctx.deps.keys.list(session.user.tenant), null, { kind: 'error', text: 'No such key.' }),
      );
    }
    // Not confirmed (a form other than the confirmation page's): nothing changes; the confirmation is shown.
    if ((request.body as Form)[REVOKE_CONFIRMATION.name] !== REVOKE_CONFIRMATION.value) {
      return reply
        .code(303)
        .header('location', `/keys/${encodeURIComponent(id)}/revoke`)
        .send();
    }
    await ctx.deps.revokeKey(id);
    ctx.audit(request, session, 'key_revoked', { keyId: id });
    return ctx.done(request, reply, KEYS, { notice: { kind: 'ok', text: `Key ${id} revoked: it is refused everywhere from now on.` } });
  });
  // Rotation: the new key works at once; the old one until the overlap ends (refused from then on by
  // every process; the sweeper closes what it left open). An overlap of none revokes it now.
  app.post('/keys/:id/rotate', async (request, reply) => {
    const session = await ctx.change(request, reply);
    if (!session) return reply;
    const { id } = request.params as { id: string };
    const list = async () => ctx.deps.keys.list(session.user.tenant);
    const key = await ctx.deps.keys.get(id);
    if (!key || key.tenant !== session.user.tenant || key.revokedAt !== null) {
      return html(reply.code(404), keysPage(ctx.pageUser(session), await list(), null, { kind: 'error', text: 'No such key.' }));
    }
    const overlap = ROTATION_OVERLAPS.find((o) => String(o.seconds) === (request.body as Form).overlap_seconds);
    if (!overlap) {
      const choices = ROTATION_OVERLAPS.map((o) => o.label).join(', ');
      return html(
        reply.code(422),
        keysPage(ctx.pageUser(session), await list(), null, { kind: 'error', text: `Not rotated: choose when the old key is revoked (overlap: ${choices}).` }),
      );
    }
    const revokeAt = new Date(ctx.deps.clock() + overlap.seconds * 1000);
    let rotated;
    try {
      rotated = await ctx.deps.keys.rotate(id, revokeAt);
    } catch (error) {
      if (!isKeyStoreError(error)) throw error;
      const status = error.code === 'not_found' ? 404 : 422;
      const text = error.code === 'not_found' ? 'No such key.' : `Not rotated: ${error.message}.`;
      return html(reply.code(status), keysPage(ctx.pageUser(session), await list(), null, { kind: 'error', text }));
    }
    if (overlap.seconds === 0) await ctx.deps.revokeKey(id);
    ctx.audit(request, session, 'key_rotated', { keyId: rotated.record.id, rotatedKeyId: id, revokeAt: revokeAt.toISOString() });
    const when = overlap.seconds === 0 ? 'revoked now' : `works until ${utcMinute(revokeAt.toISOString())}, then it is revoked`;
    const notice: Notice = { kind: 'ok', text: `Key ${id} rotated: the new key ${rotated.record.id} works now; ${id} ${when}.` };
    return ctx.done(request, reply, KEYS, { notice, shown: { id: rotated.record.id, key: rotated.key } satisfies CreatedKey });
  });
  // A key's result retention (1-72 h) and default language: the API reads the key on every request, so
  // the next job or answer follows at once.
  app.post('/keys/:id/settings', async (request, reply) => {
    const session = await ctx.change(request, reply);
    if (!session) return reply;
    const { id } = request.params as { id: string };
    const form = request.body as Form;
    const key = await ctx.deps.keys.get(id);
    const list = async () => ctx.deps.keys.list(session.user.tenant);
    if (!key || key.tenant !== session.user.tenant || key.revokedAt !== null) {
      return html(reply.code(404), keysPage(ctx.pageUser(session), await list(), null, { kind: 'error', text: 'No such key.' }));
    }
    // Whole hours written as decimal digits: Number() would read '0x10' as 16 and '1e1' as 10.
    const retention = /^[0-9]{1,3}$/.test(form.retention_hours ?? '') ? Number(form.retention_hours) : Number.NaN;
    const language = (form.default_language ?? '').trim();
    try {
      await ctx.deps.keys.update(id, { retentionHours: retention, defaultLanguage: language === '' ? null : language });
    } catch (error) {
      if (!isKeyStoreError(error) || error.code !== 'invalid_argument') throw error;
      return html(reply.code(422), keysPage(ctx.pageUser(session), await list(), null, { kind: 'error', text: `Not saved: ${error.message}.` }));
    }
    ctx.audit(request, session, 'key_settings_changed', { keyId: id });
    return ctx.done(request, reply, KEYS, { notice: { kind: 'ok', text: `Key ${id} saved: the API follows it from now on.` } });
  });
}
