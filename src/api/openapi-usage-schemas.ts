// The model list and the usage report as JSON Schema.
import { BLOCK_REASONS } from '../billing/billing-decision.js';
import { MODEL_OWNER } from '../contract/transcription-request.js';
import { BILLING_STATES, PLANS } from '../domain/api-keys.js';
import { MODEL_IDS } from '../domain/model-ids.js';
import { USAGE_ROUTES } from '../domain/usage-routes.js';
import { boolean, integer, number, ref, string } from './openapi-schema-builders.js';
import type { Schema } from './openapi-types.js';

export const model: Schema = {
  type: 'object',
  description: "OpenAI's model object, with what serves the model on this server.",
  required: ['id', 'object', 'created', 'owned_by', 'file', 'model_build', 'loaded'],
  additionalProperties: false,
  properties: {
    id: string({ enum: MODEL_IDS }),
    object: string({ const: 'model' }),
    created: integer({ description: 'Unix seconds: when the model file was last written.' }),
    owned_by: string({ const: MODEL_OWNER }),
    file: string({ description: 'The ggml file serving this model (its name, not its path).' }),
    model_build: string({ description: "As in results' `metadata.model_build`." }),
    loaded: boolean({ description: 'Its engine is open and takes work.' }),
  },
};

export const modelList: Schema = {
  type: 'object',
  required: ['object', 'data'],
  additionalProperties: false,
  properties: { object: string({ const: 'list' }), data: { type: 'array', items: ref('Model') } },
};

export const nullableNumber = (description: string): Schema => ({ type: ['number', 'null'], description });
export const usageSafety: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['vocabulary_fallbacks', 'suspect_insertions', 'review_required', 'unsupported_language'],
  properties: {
    vocabulary_fallbacks: integer({ description: 'Stretches decoded again without the vocabulary prompt (safety check).' }),
    suspect_insertions: integer({ description: 'Vocabulary terms the safety check found inserted without being said.' }),
    review_required: integer({ description: 'Passages marked review_required.' }),
    unsupported_language: integer({ description: 'Work refused or failed because the language spoken is not supported.' }),
  },
};
export const usageLine: Schema = {
  type: 'object',
  description: "A key's metered work for one route, model and language family. Counters only: no content, file names or text.",
  additionalProperties: false,
  required: [
    'route',
    'model',
    'language_family',
    'units',
    'audio_seconds',
    'audio_hours',
    'overage_hours',
    'cost',
    'diarization_seconds',
    'vocabulary_seconds',
    'patterns_seconds',
    'safety',
  ],
  properties: {
    route: string({ enum: [...USAGE_ROUTES] }),
    model: string(),
    language_family: string({ description: 'A language family, `mixed`, or `und` (no speech).' }),
    units: integer({ description: 'Requests, jobs or realtime slices (a minute of audio each, the last shorter).' }),
    audio_seconds: number(),
    audio_hours: number(),
    overage_hours: number({ description: "The part beyond the tenant's allowance." }),
    cost: number({ description: 'Charged for the overage, in currency units.' }),
    diarization_seconds: number(),
    vocabulary_seconds: number(),
    patterns_seconds: number(),
    safety: usageSafety,
  },
};
export const usageBlock: Schema = {
  type: ['object', 'null'],
  description: 'Why new work in this pool is refused with 402 billing_blocked, or null.',
  additionalProperties: false,
  required: ['reason', 'resets_at'],
  properties: {
    reason: string({ enum: [...BLOCK_REASONS] }),
    resets_at: { type: ['string', 'null'], format: 'date-time', description: 'When the block lifts by itself (the next period); null: an operator must act.' },
  },
};
export const usageKey: Schema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'plan',
    'billing_state',
    'revoked',
    'terms',
    'batch_seconds',
    'realtime_seconds',
    'overage_hours',
    'cost',
    'credit_left',
    'blocked',
    'lines',
  ],
  properties: {
    id: string(),
    plan: string({ enum: [...PLANS] }),
    billing_state: string({ enum: [...BILLING_STATES] }),
    revoked: boolean(),
    terms: {
      type: 'object',
      description:
        "The terms the key is billed under (its plan, with the operator's and the key's own overrides). Null: unlimited, no overage sold, or no cap.",
      additionalProperties: false,
      required: [
        'batch_included_hours',
        'realtime_included_hours',
        'batch_price_per_hour',
        'realtime_price_per_hour',
        'spend_cap',
        'realtime_session_max_hours',
      ],
      properties: {
        batch_included_hours: nullableNumber('Batch audio-hours included per period, shared by the tenant.'),
        realtime_included_hours: nullableNumber('Realtime audio-hours included per period, shared by the tenant.'),
        batch_price_per_hour: nullableNumber('Per audio-hour beyond the batch allowance.'),
        realtime_price_per_hour: nullableNumber('Per audio-hour beyond the realtime allowance.'),
        spend_cap: nullableNumber('The most this key is charged in a period.'),
        realtime_session_max_hours: nullableNumber(
          'The most audio one realtime session takes; it then ends with its `final` and close 4408 `SESSION_TOO_LONG`.',
        ),
      },
    },
    batch_seconds: number(),
    realtime_seconds: number(),
    overage_hours: number(),
    cost: number(),
    credit_left: nullableNumber('Prepaid credit left; null: billed afterwards.'),
    blocked: { type: 'object', additionalProperties: false, required: ['batch', 'realtime'], properties: { batch: usageBlock, realtime: usageBlock } },
    lines: { type: 'array', items: usageLine },
  },
};
export const usage: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['object', 'period', 'starts_at', 'resets_at', 'tenant', 'batch_seconds', 'realtime_seconds', 'keys'],
  properties: {
    object: string({ const: 'usage' }),
    period: string({ pattern: '^[0-9]{4}-[0-9]{2}$', description: 'The month the billing period starts in.' }),
    starts_at: string({ format: 'date-time' }),
    resets_at: string({ format: 'date-time', description: 'When allowances and spend caps reset.' }),
    tenant: string(),
    batch_seconds: number({ description: "The tenant's batch audio this period (its keys share the allowance)." }),
    realtime_seconds: number({ description: "The tenant's realtime audio this period." }),
    keys: { type: 'array', items: usageKey },
  },
};
