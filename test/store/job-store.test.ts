// The JobStore contract (contract/job-store-contract.ts) against SQLite and PostgreSQL.
import t from 'tap';

import { jobStoreContract } from './contract/job-store-contract.js';
import { postgresJobStores, sqliteJobStores } from './contract/job-store-harnesses.js';

jobStoreContract(t, 'KyselyJobStore on SQLite', sqliteJobStores);
jobStoreContract(t, 'KyselyJobStore on PostgreSQL', postgresJobStores);
