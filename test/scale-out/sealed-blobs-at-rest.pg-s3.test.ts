// The same suite as test/service/sealed-blobs-at-rest.test.ts, on PostgreSQL and S3 (s3rver) instead of SQLite and local disk:
// job audio uploaded to the bucket sealed, results sealed there, nothing plain in the bucket or the data folder.
process.env.SVC_TEST_STORES = 'postgres+s3';
await import('../service/sealed-blobs-at-rest.test.js');
