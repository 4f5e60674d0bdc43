// The same suite as test/webhooks/webhook-delivery.test.ts, on PostgreSQL and S3 (s3rver) instead of SQLite and local disk:
// the webhook outbox and its delivery (signing, retries, giving up, rotation).
process.env.SVC_TEST_STORES = 'postgres+s3';
await import('../webhooks/webhook-delivery.test.js');
