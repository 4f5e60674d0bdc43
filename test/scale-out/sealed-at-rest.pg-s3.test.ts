// The same proof as test/service/sealed-at-rest.test.ts, on PostgreSQL and S3: a pg_dump of the
// service's database holds no planted phrase.
process.env.SVC_TEST_STORES = 'postgres+s3';
await import('../service/sealed-at-rest.test.js');
