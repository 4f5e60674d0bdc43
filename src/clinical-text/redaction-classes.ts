// What redaction can remove, named once: the identifier classes after HIPAA's Safe Harbor list
// (45 CFR 164.514(b)(2)), the optional health classes, the policy names that select them and the
// substitutions. The names are the contract's (docs/API.md "Redaction"), so they are stable.

/** Safe Harbor's identifiers, one class each (fax numbers are phone numbers; employers have their own class). */
export const IDENTIFIER_CLASSES = [
  'person_name',
  'organization_name',
  'location',
  'date',
  'age_over_89',
  'phone_number',
  'email_address',
  'ssn',
  'medical_record_number',
  'health_plan_number',
  'account_number',
  'license_number',
  'vehicle_id',
  'device_id',
  'url',
  'ip_address',
  'other_id',
] as const;

/** Clinical content (Deepgram's `phi` group): off unless asked for, since it is what users keep. */
export const HEALTH_CLASSES = ['medical_condition', 'medication', 'medical_procedure'] as const;

export type IdentifierClass = (typeof IDENTIFIER_CLASSES)[number];
export type HealthClass = (typeof HEALTH_CLASSES)[number];
export type RedactionClass = IdentifierClass | HealthClass;

/** Names that select several classes at once. */
export const POLICY_GROUPS: Readonly<Record<string, readonly RedactionClass[]>> = {
  identifiers: IDENTIFIER_CLASSES,
  health: HEALTH_CLASSES,
  all: [...IDENTIFIER_CLASSES, ...HEALTH_CLASSES],
};

export const DEFAULT_POLICIES: readonly string[] = ['identifiers'];

/** `entity_name` writes `[PERSON_NAME]`; `hash` writes `####`, always four, so the length of what went is not told. */
export const SUBSTITUTIONS = ['entity_name', 'hash'] as const;
export type Substitution = (typeof SUBSTITUTIONS)[number];

const CLASS_NAMES: ReadonlySet<string> = new Set<string>([...IDENTIFIER_CLASSES, ...HEALTH_CLASSES]);

export class RedactionPolicyError extends Error {
  override readonly name = 'RedactionPolicyError';
  constructor(readonly unknown: string[]) {
    super(`unknown redaction ${unknown.length === 1 ? 'policy' : 'policies'} ${unknown.map((name) => `'${name}'`).join(', ')}; ${KNOWN_POLICIES}`);
  }
}

/** What a refused policy name is told. */
export const KNOWN_POLICIES = `policies are ${Object.keys(POLICY_GROUPS).join(', ')} or a class: ${[...CLASS_NAMES].join(', ')}`;

/** The classes that `policies` (class or group names) select; throws RedactionPolicyError naming every unknown one. */
export function resolvePolicies(policies: readonly string[] = DEFAULT_POLICIES): ReadonlySet<RedactionClass> {
  const unknown = policies.filter((name) => !CLASS_NAMES.has(name) && !Object.hasOwn(POLICY_GROUPS, name));
  if (unknown.length > 0) throw new RedactionPolicyError(unknown);
  const classes = new Set<RedactionClass>();
  for (const name of policies) {
    for (const c of Object.hasOwn(POLICY_GROUPS, name) ? POLICY_GROUPS[name] : [name as RedactionClass]) classes.add(c);
  }
  return classes;
}

export function substitutionFor(type: RedactionClass, substitution: Substitution): string {
  return substitution === 'hash' ? '####' : `[${type.toUpperCase()}]`;
}

export function isSubstitution(value: string): value is Substitution {
  return (SUBSTITUTIONS as readonly string[]).includes(value);
}
