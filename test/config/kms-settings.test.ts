// The AWS KMS settings (SVC_KMS_KEY_ID, SVC_KMS_PREVIOUS_KEY_IDS, SVC_KMS_ENDPOINT; the region from the
// key ARNs, else AWS_REGION): read as given, and every bad value refused naming its setting.
import t from 'tap';

import { ConfigError } from '../../src/config/config-error.js';
import { loadKmsSettings } from '../../src/config/load-config.js';

const ARN = 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const OTHER_ARN = 'arn:aws:kms:eu-west-1:111122223333:key/0987dcba-09fe-87dc-65ba-ab0987654321';

function problemsOf(env: Record<string, string>): readonly string[] {
  try {
    loadKmsSettings(env);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

t.test('read as given', async (t) => {
  t.equal(loadKmsSettings({}), null, 'none: the local master key alone');
  t.same(loadKmsSettings({ SVC_KMS_KEY_ID: ARN }), { keyId: ARN, previousKeyIds: [], region: 'eu-west-1' }, "an ARN's region");
  t.same(
    loadKmsSettings({
      SVC_KMS_KEY_ID: 'alias/svc-stt',
      SVC_KMS_PREVIOUS_KEY_IDS: ` ${OTHER_ARN} ,`,
      AWS_REGION: 'eu-west-1',
      SVC_KMS_ENDPOINT: 'http://127.0.0.1:4566',
    }),
    {
      keyId: 'alias/svc-stt',
      previousKeyIds: [OTHER_ARN],
      region: 'eu-west-1',
      endpoint: 'http://127.0.0.1:4566',
    },
  );
  t.same(
    loadKmsSettings({ SVC_KMS_PREVIOUS_KEY_IDS: ARN }),
    { keyId: null, previousKeyIds: [ARN], region: 'eu-west-1' },
    'previous alone: back to the local key',
  );
  t.same(loadKmsSettings({ SVC_KMS_KEY_ID: '1234abcd-12ab-34cd-56ef-1234567890ab', AWS_REGION: 'us-east-2' })?.region, 'us-east-2');
});

t.test('refused, naming the setting', async (t) => {
  t.match(problemsOf({ SVC_KMS_KEY_ID: 'my key' }), [/^SVC_KMS_KEY_ID must be a KMS key id, key ARN, alias name/]);
  t.match(problemsOf({ SVC_KMS_KEY_ID: ARN, SVC_KMS_PREVIOUS_KEY_IDS: 'alias/old,nope!' }), [/^SVC_KMS_PREVIOUS_KEY_IDS must be comma-separated KMS key ids/]);
  t.match(problemsOf({ SVC_KMS_KEY_ID: ARN, SVC_KMS_PREVIOUS_KEY_IDS: 'alias/old,key/x' }), [/^SVC_KMS_PREVIOUS_KEY_IDS holds ids that are not .*: key\/x$/]);
  t.match(problemsOf({ SVC_KMS_KEY_ID: 'alias/svc-stt' }), [/^SVC_KMS_KEY_ID needs a region: give key ARNs, or set AWS_REGION/]);
  t.match(problemsOf({ SVC_KMS_KEY_ID: ARN, AWS_REGION: 'us-east-1' }), [/^SVC_KMS_KEY_ID and SVC_KMS_PREVIOUS_KEY_IDS must name keys of one region/]);
  t.match(problemsOf({ SVC_KMS_KEY_ID: ARN, SVC_KMS_PREVIOUS_KEY_IDS: ARN.replace('eu-west-1', 'us-west-2') }), [/must name keys of one region/]);
  t.match(problemsOf({ SVC_KMS_KEY_ID: ARN, SVC_KMS_ENDPOINT: 'ftp://kms' }), [/^SVC_KMS_ENDPOINT must be an http\(s\) URL/]);
  t.match(problemsOf({ SVC_KMS_ENDPOINT: 'http://127.0.0.1:4566' }), [/^SVC_KMS_ENDPOINT has no effect without SVC_KMS_KEY_ID or SVC_KMS_PREVIOUS_KEY_IDS/]);
});
