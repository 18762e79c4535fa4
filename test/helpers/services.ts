/** Where the tests find Postgres and Redis: DATABASE_URL / REDIS_URL, else the default local addresses. */
export const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
