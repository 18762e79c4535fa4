import pg from 'pg';

/** The Postgres server the bench makes its scratch databases on. */
export const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

/** DATABASE_URL pointed at database `name`. */
export function databaseUrl(name: string): string {
  const u = new URL(DATABASE_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Runs one statement on DATABASE_URL's own database (create or drop a scratch one). */
export async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: DATABASE_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}
