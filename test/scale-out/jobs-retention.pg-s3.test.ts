// The same suite as test/jobs/jobs-retention.test.ts, on PostgreSQL and S3 (s3rver) instead of SQLite and local disk:
// retention, tombstones, include_result and the webhook retention floor.
process.env.SVC_TEST_STORES = 'postgres+s3';
await import('../jobs/jobs-retention.test.js');
