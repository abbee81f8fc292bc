import pg from 'pg';

/**
 * The fast bulk path for the 1 M-user scenarios: straight into PostgreSQL with INSERT … SELECT
 * generate_series, not through HTTP. The rows are what Latch itself writes for a password user
 * (users row with the denormalised primary email + its primary, auth-enabled email channel), with a
 * real argon2id hash copied from a user signed up over HTTP.
 *
 * To be fast, the secondary indexes of users and contact_channels are dropped, the rows inserted
 * (foreign-key triggers skipped: the rows are consistent by construction), and the indexes rebuilt
 * from their own definitions (two at a time: one per core), then VACUUM ANALYZE. The schema that
 * results is checked to be exactly the one the migrations made.
 */
export const FIRST_NAMES = [
  'Ada',
  'Alan',
  'Grace',
  'Linus',
  'Barbara',
  'Ken',
  'Margaret',
  'Dennis',
  'Frances',
  'Edsger',
  'Radia',
  'Donald',
  'Hedy',
  'John',
  'Karen',
  'Niklaus',
  'Lynn',
  'Tim',
  'Sophie',
  'Guido',
  'Anita',
  'Bjarne',
  'Shafi',
  'Leslie',
  'Jean',
  'Robin',
  'Mary',
  'Vint',
  'Joan',
  'Whitfield',
  'Adele',
  'Brian',
  'Carol',
  'David',
  'Elena',
  'Farid',
  'Gita',
  'Hiro',
  'Ines',
  'Jorge',
  'Kofi',
  'Lena',
  'Mateo',
  'Nadia',
  'Omar',
  'Priya',
  'Quinn',
  'Rosa',
  'Sven',
  'Tariq',
];
export const LAST_NAMES = [
  'Lovelace',
  'Turing',
  'Hopper',
  'Torvalds',
  'Liskov',
  'Thompson',
  'Hamilton',
  'Ritchie',
  'Allen',
  'Dijkstra',
  'Perlman',
  'Knuth',
  'Lamarr',
  'Backus',
  'Jones',
  'Wirth',
  'Conway',
  'Lee',
  'Wilson',
  'Rossum',
  'Borg',
  'Stroustrup',
  'Goldwasser',
  'Lamport',
  'Bartik',
  'Milner',
  'Keller',
  'Cerf',
  'Clarke',
  'Diffie',
  'Goldberg',
  'Kernighan',
  'Shaw',
  'Patterson',
  'Garcia',
  'Haddad',
  'Iyer',
  'Tanaka',
  'Moreau',
  'Silva',
  'Mensah',
  'Novak',
  'Rossi',
  'Petrov',
  'Nasser',
  'Rao',
  'Quinlan',
  'Ortega',
  'Lund',
  'Aziz',
];
export const DOMAINS = ['gmail.com', 'outlook.com', 'example.com', 'corp.example', 'mail.dev', 'proton.me', 'yahoo.co.jp', 'uni.edu'];

/** The email of seeded user i (1-based), as the SQL below writes it. */
export function seededEmail(i: number): string {
  const first = FIRST_NAMES[i % FIRST_NAMES.length]!.toLowerCase();
  const last = LAST_NAMES[Math.floor(i / FIRST_NAMES.length) % LAST_NAMES.length]!.toLowerCase();
  return `${first}.${last}${i}@${DOMAINS[i % DOMAINS.length]}`;
}

/** Seeded users sign up 37 ms apart (millisecond precision, so cursors round-trip exactly). */
export const SEED_STEP_MS = 37;

function sqlArray(values: string[]): string {
  return `ARRAY[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(',')}]`;
}

export interface SeedResult {
  users: number;
  seconds: number;
  /** The signed_up_at of seeded user 1; user i signed up SEED_STEP_MS × (i − 1) later. */
  baseMillis: number;
}

export async function seedUsers(databaseUrl: string, tenancyId: string, count: number, passwordHash: string, log: (line: string) => void): Promise<SeedResult> {
  const started = performance.now();
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const indexQuery = `SELECT indexname, indexdef FROM pg_indexes i WHERE schemaname = 'public' AND tablename = ANY($1)
      AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname) ORDER BY indexname`;
  const { rows: indexes } = await client.query<{ indexname: string; indexdef: string }>(indexQuery, [['users', 'contact_channels']]);
  const baseMillis = Date.UTC(2023, 0, 1);
  try {
    await client.query('BEGIN');
    for (const index of indexes) await client.query(`DROP INDEX ${index.indexname}`);
    // Foreign-key triggers off for this transaction only (superuser): every row points at a real row.
    await client.query(`SET LOCAL session_replication_role = replica`);
    await client.query(
      `INSERT INTO users (tenancy_id, id, display_name, primary_email, primary_email_verified, auth_with_email, password_hash, signed_up_at, last_active_at)
       SELECT $1::uuid, gen_random_uuid(),
              f.n || ' ' || l.n,
              lower(f.n) || '.' || lower(l.n) || i || '@' || (${sqlArray(DOMAINS)})[i % ${DOMAINS.length} + 1],
              i % 3 = 0, true, $2,
              to_timestamp($3::float8 / 1000) + (i - 1) * interval '${SEED_STEP_MS} milliseconds',
              to_timestamp($3::float8 / 1000) + (i - 1) * interval '${SEED_STEP_MS} milliseconds'
       FROM generate_series(1, $4::int) AS i,
            LATERAL (SELECT (${sqlArray(FIRST_NAMES)})[i % ${FIRST_NAMES.length} + 1] AS n) f,
            LATERAL (SELECT (${sqlArray(LAST_NAMES)})[(i / ${FIRST_NAMES.length}) % ${LAST_NAMES.length} + 1] AS n) l`,
      [tenancyId, passwordHash, baseMillis, count],
    );
    await client.query(
      `INSERT INTO contact_channels (tenancy_id, id, user_id, type, value, is_primary, is_verified, used_for_auth, created_at)
       SELECT tenancy_id, gen_random_uuid(), id, 'email', primary_email, true, primary_email_verified, true, signed_up_at
       FROM users WHERE tenancy_id = $1 AND signed_up_at >= to_timestamp($2::float8 / 1000) AND signed_up_at < to_timestamp($2::float8 / 1000) + $3::int * interval '${SEED_STEP_MS} milliseconds'`,
      [tenancyId, baseMillis, count],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  log(
    `  inserted ${count.toLocaleString('en')} users + email channels in ${((performance.now() - started) / 1000).toFixed(1)} s; rebuilding ${indexes.length} indexes`,
  );

  // Rebuild the dropped indexes two at a time (two cores); CREATE INDEX takes a SHARE lock, so
  // several builds on one table do not block each other. GIN builds first: they are the slowest.
  const queue = [...indexes].sort((a, b) => Number(b.indexdef.includes('USING gin')) - Number(a.indexdef.includes('USING gin')));
  const workers = await Promise.all(
    [0, 1].map(async () => {
      const c = new pg.Client({ connectionString: databaseUrl });
      await c.connect();
      await c.query(`SET maintenance_work_mem = '512MB'`);
      return c;
    }),
  );
  await Promise.all(
    workers.map(async (c) => {
      for (let next = queue.shift(); next; next = queue.shift()) await c.query(next.indexdef);
    }),
  );
  await Promise.all(workers.map((c) => c.end()));
  await client.query('VACUUM (ANALYZE) users');
  await client.query('VACUUM (ANALYZE) contact_channels');
  // Flush the seed's ~1 GB of dirty pages now: otherwise the checkpoint that follows it runs
  // during the first scenarios (GET /users/me and its floors) and slows all three by ~30 %.
  await client.query('CHECKPOINT');

  const { rows: after } = await client.query<{ indexname: string; indexdef: string }>(indexQuery, [['users', 'contact_channels']]);
  if (JSON.stringify(after) !== JSON.stringify(indexes)) throw new Error('the rebuilt indexes differ from the migrated schema');
  const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE tenancy_id = $1', [tenancyId]);
  await client.end();
  return { users: rows[0]!.n, seconds: (performance.now() - started) / 1000, baseMillis };
}
