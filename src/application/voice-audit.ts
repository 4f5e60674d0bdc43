// The access audit trail of enrolled voices (biometric data): one structured line per enrolment,
// listing, read, use in a request and deletion, saying which voice, which key and which tenant. Never
// the voice's name (a person's name) or its statistics, only ids and counts.

/** Every voice audit event, declared once: log readers and tests match on these names. */
export const VOICE_AUDIT_EVENTS = {
  enrolled: 'voice.enrolled',
  /** `count`: how many voices the listing showed. */
  listed: 'voice.listed',
  read: 'voice.read',
  /** Named by `known_speakers` in a transcription (`requestId`). */
  used: 'voice.used',
  deleted: 'voice.deleted',
} as const;

export type VoiceAuditEvent = (typeof VOICE_AUDIT_EVENTS)[keyof typeof VOICE_AUDIT_EVENTS];

/** The message of every voice audit line: filter on it, then on `audit`. */
export const VOICE_AUDIT_MESSAGE = 'voice audit';

export interface VoiceAuditLog {
  info(details: object, message: string): void;
}

export interface VoiceAuditLine {
  keyId: string;
  tenantId: string;
  voiceId?: string;
  requestId?: string;
  count?: number;
}

/** Writes one line, copying the fields one by one (never a record spread into it). */
export function auditVoice(log: VoiceAuditLog, event: VoiceAuditEvent, line: VoiceAuditLine): void {
  const details: Record<string, unknown> = { audit: event, keyId: line.keyId, tenantId: line.tenantId };
  if (line.voiceId !== undefined) details.voiceId = line.voiceId;
  if (line.requestId !== undefined) details.requestId = line.requestId;
  if (line.count !== undefined) details.count = line.count;
  log.info(details, VOICE_AUDIT_MESSAGE);
}
