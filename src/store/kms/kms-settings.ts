// What the AWS KMS key provider needs (the service builds it from SVC_KMS_* and the AWS SDK's own
// environment). Credentials are never settings of ours: the SDK's default chain finds them
// (AWS_ACCESS_KEY_ID..., a shared profile, an instance or task role).

export interface KmsSettings {
  /**
   * The KMS key new data keys are wrapped under: a key id, key ARN, alias name (`alias/...`) or alias
   * ARN, as the operator wrote it (the rows name it so). Null: the local master key wraps them, and
   * the KMS keys below only unwrap (a rotation from KMS back to a local key).
   */
  keyId: string | null;
  /** KMS keys being rotated away from: they still unwrap what they wrapped; nothing new is wrapped under them. */
  previousKeyIds: string[];
  /** Where every key above lives: one client, one region. */
  region: string;
  /** The KMS API address (a VPC endpoint, a local stand-in); absent: AWS's own for the region. */
  endpoint?: string;
}

// The forms KMS takes as a KeyId: key id (or multi-Region `mrk-` id), key ARN, alias name, alias ARN.
const KEY_ID = /^(?:arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:(?:key|alias)\/[\w/-]+|alias\/[\w/-]+|(?:mrk-)?[0-9a-f-]{32,36})$/;
const ARN_REGION = /^arn:aws[a-z-]*:kms:([a-z0-9-]+):/;

/** Whether `value` is a KeyId KMS takes (it checks the rest itself). */
export function isKmsKeyId(value: string): boolean {
  return KEY_ID.test(value);
}

/** The region an ARN names; null for a bare key id or alias name. */
export function kmsKeyRegion(keyId: string): string | null {
  return ARN_REGION.exec(keyId)?.[1] ?? null;
}
