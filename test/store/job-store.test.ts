// The JobStore contract (contract/job-store-contract.ts) against SQLite and PostgreSQL.
import t from 'tap';
import { jobStoreContract } from './contract/job-store-contract.js';
import { postgresJobStores, sqliteJobStores } from './contract/job-store-harnesses.js';
import { KyselyJobStore } from '../../src/store/kysely/kysely-job-store.js';
import { postgresStoreDb, sqliteStoreDb } from '../../src/store/kysely/store-db.js';

jobStoreContract(t, 'KyselyJobStore on SQLite', sqliteJobStores);
jobStoreContract(t, 'KyselyJobStore on PostgreSQL', postgresJobStores);
