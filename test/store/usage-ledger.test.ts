// The UsageLedger contract (contract/usage-ledger-contract.ts) against SQLite and PostgreSQL.
import t from 'tap';
import { PgUsageLedger } from '../../src/store/postgres/pg-usage-ledger.js';
import { SqliteUsageLedger } from '../../src/store/sqlite/sqlite-usage-ledger.js';
import { usageLedgerContract } from './contract/usage-ledger-contract.js';
import { postgresDatabases, sqliteDatabases } from './contract/store-databases.js';

usageLedgerContract(t, 'SqliteUsageLedger', async (t) => {
  const databases = await sqliteDatabases(t);
  const { db } = databases;
  return {
    ledger: new SqliteUsageLedger(db),
    another: async () => new SqliteUsageLedger(await databases.open()),
    rawRows: async () => db.prepare('SELECT * FROM usage_events').all() as Record<string, unknown>[],
    columnNames: async () => (db.prepare("SELECT name FROM pragma_table_info('usage_events')").all() as { name: string }[]).map((row) => row.name),
    close: databases.close,
  };
});

usageLedgerContract(t, 'PgUsageLedger', async () => {
  const databases = await postgresDatabases();
  const { db } = databases;
  return {
    ledger: new PgUsageLedger(db),
    another: async () => new PgUsageLedger(await databases.open()),
    rawRows: async () => (await db.query('SELECT * FROM usage_events')).rows,
    columnNames: async () =>
      (await db.query<{ column_name: string }>("SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'usage_events'")).rows.map(
        (row) => row.column_name,
      ),
    close: databases.close,
  };
});
