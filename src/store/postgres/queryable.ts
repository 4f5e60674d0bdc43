// What runs a statement: the pool itself, or one client inside a transaction. Its own file so the
// migrations can take one without importing the database module that runs them.
import type { QueryResult, QueryResultRow } from 'pg';

export interface Queryable {
  query<R extends QueryResultRow = Record<string, unknown>>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
}
