// The same suite as test/billing/usage-metering.test.ts, on PostgreSQL and S3 (s3rver) instead of SQLite and local disk:
// metering of every route, GET /v1/usage, the CLI report, and 402 decided by the allowance, cap, credit and a pause.
process.env.SVC_TEST_STORES = 'postgres+s3';
await import('../billing/usage-metering.test.js');
