/**
 * Build step (`npm run build`): writes the OpenAPI document that `GET /v1/openapi.json`
 * serves to the path given, without a database, so the web app's client types are generated
 * from the very same document (`openapi-typescript`) and cannot drift from the API.
 */
import { writeFileSync } from 'node:fs';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import pino from 'pino';
import { loadConfig } from '../config.js';
import type { Database } from '../db/schema.js';
import { buildApp } from '../http/app.js';

const out = process.argv[2];
if (!out) {
  process.stderr.write('usage: write-openapi <file.json>\n');
  process.exit(2);
}

// A database that is never asked anything: building the routes queries nothing.
const db = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});
const { app } = await buildApp({ config: loadConfig({}), db, log: pino({ level: 'silent' }) });
const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
await app.close();
if (res.statusCode !== 200) throw new Error(`GET /v1/openapi.json answered ${res.statusCode}`);
writeFileSync(out, `${JSON.stringify(JSON.parse(res.body), null, 2)}\n`);
process.stdout.write(`tack: wrote ${out}\n`);
