import pg from 'pg';

/**
 * Runs one statement on a fresh connection to `url` and returns its rows: for the process-level
 * tests and the bench tools (bench/lib/setup.ts), which talk to databases no harness opened.
 */
export async function queryRows<T extends pg.QueryResultRow = pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}
