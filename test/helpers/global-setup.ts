import pg from 'pg';
import { Redis } from 'ioredis';
import { accessSync, constants } from 'node:fs';
import { CHROMIUM } from './browser.js';
import { DATABASE_URL, REDIS_URL } from './services.js';

/** Fails the run at once, saying plainly which service is missing and how it was looked for. */
export default async function checkServices(): Promise<void> {
  const missing: string[] = [];
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (err) {
    missing.push(
      `PostgreSQL is not answering at ${DATABASE_URL} (${(err as Error).message}). ` +
        'Start it, or set DATABASE_URL to a server where this user may create databases.',
    );
  } finally {
    await client.end().catch(() => {});
  }
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 3_000, retryStrategy: () => null });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    missing.push(`Redis is not answering at ${REDIS_URL} (${(err as Error).message}). Start it, or set REDIS_URL.`);
  } finally {
    redis.disconnect();
  }
  try {
    accessSync(CHROMIUM, constants.X_OK);
  } catch {
    missing.push(
      `Chromium is not at ${CHROMIUM} (the web app's browser tests drive it). ` +
        'Install it with `apt-get install chromium`, or set CHROMIUM_PATH to a Chromium or Chrome binary.',
    );
  }
  if (missing.length > 0) {
    const text = `\nThe tests need these and could not find them:\n - ${missing.join('\n - ')}\n(.ci/run installs and starts what is missing.)\n`;
    process.stderr.write(text);
    throw new Error(text);
  }
}
