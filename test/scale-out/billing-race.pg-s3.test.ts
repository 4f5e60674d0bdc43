// The same suite as test/billing/billing-race.test.ts, on PostgreSQL and S3 (s3rver) instead of SQLite and local disk:
// requests racing for the last of an allowance, a spend cap and a credit admit exactly what fits.
process.env.SVC_TEST_STORES = 'postgres+s3';
await import('../billing/billing-race.test.js');
