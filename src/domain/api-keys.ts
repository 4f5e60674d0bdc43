// API keys in the domain's words: the plans a key is on, the entitlements it holds, its billing
// state, and the record every layer reads (the store keeps it, the API authenticates with it).

export const PLANS = ['builder', 'payg', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export const ENTITLEMENTS = ['patterns', 'language_detection'] as const;
export type Entitlement = (typeof ENTITLEMENTS)[number];
/** What a new key gets unless told otherwise (docs/DESIGN.md decision 2: language detection on, patterns off). */
export const DEFAULT_ENTITLEMENTS: readonly Entitlement[] = ['language_detection'];

export const BILLING_STATES = ['active', 'paused'] as const;
export type BillingState = (typeof BILLING_STATES)[number];

export interface ApiKeyRecord {
  id: string;
  tenant: string;
  plan: Plan;
  entitlements: Entitlement[];
  /** BCP-47 tag used when a request omits `language`; null means English. */
  defaultLanguage: string | null;
  /** smart_format for requests that do not say (docs/API.md "Smart format"); a request's own value wins. */
  smartFormatDefault: boolean;
  /**
   * Redaction policies every transcript of this key gets, whatever its request says (a request may add
   * policies, never remove these); null: only what each request asks for.
   */
  redactAlways: string[] | null;
  billingState: BillingState;
  /** Result retention for jobs, 1 to 72 hours. */
  retentionHours: number;
  /** Requests per minute allowed for this key (null: the server default). */
  rateLimitPerMinute: number | null;
  createdAt: string;
  /**
   * When the key stopped being usable: its revocation, or its scheduled revocation once that time
   * has come (the key is refused from then on, before the sweeper carries it out); null while usable.
   */
  revokedAt: string | null;
  /** A revocation scheduled by a rotation (the overlap's end); null: none. */
  revokeAt: string | null;
  /**
   * When the key last authenticated an API request or started a realtime session, to within
   * KEY_USE_RESOLUTION_MS (uses closer together than that are not written); null: never.
   */
  lastUsedAt: string | null;
}
