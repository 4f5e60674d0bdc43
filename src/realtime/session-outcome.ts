// How a realtime session ended, for the access audit log (the service writes one line per session).
import type { BlockReason } from '../billing/billing-decision.js';
import type { StartCredential } from '../contract/realtime-start.js';

/** How a session ended, for the access audit log: ids, counts and codes, never content. */
export interface SessionOutcome {
  sessionId: string | null;
  /** The key and tenant of a session that started (null: refused before its key was known). */
  keyId: string | null;
  tenantId: string | null;
  /** What the start presented: the key itself, or a client secret it minted (null: no valid start). */
  credential: StartCredential['kind'] | null;
  closeCode: number;
  closeReason: string;
  /** Audio received, and the part of it metered (less a cut-off session's untranscribed tail). */
  audioSeconds: number;
  meteredSeconds: number;
  turns: number;
  /** Billing's word: the start refused for a block, or the session cut at one (null: neither). */
  billingBlocked: BlockReason | null;
  /** The enrolled voices the session's live labels named when they matched (ids only; empty: none). */
  voiceIds: string[];
}
