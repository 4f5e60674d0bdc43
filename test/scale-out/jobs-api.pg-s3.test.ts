// The same suite as test/jobs/jobs-api.test.ts, on PostgreSQL and S3 (s3rver) instead of SQLite and local disk:
// the jobs API (transitions, owner scoping, idempotency, long polls, provisional results, failures).
process.env.SVC_TEST_STORES = 'postgres+s3';
await import('../jobs/jobs-api.test.js');
