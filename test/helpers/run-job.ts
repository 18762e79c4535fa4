/**
 * Runs one job once in a process of its own, so a test can kill it at a chosen moment
 * (a crash): `node --import tsx test/helpers/run-job.ts <job name>`, with the server's
 * environment plus TACK_TEST_NOW (the clock, ISO). Prints the result as JSON.
 */
import pino from 'pino';
import { JOBS } from '../../jobs/index.js';
import { loadConfig } from '../../src/config.js';
import { connect } from '../../src/db/connect.js';
import { isJobName } from '../../src/domain/jobs.js';
import { slackWebClient } from '../../src/slack/web-client.js';

const name = process.argv[2] ?? '';
if (!isJobName(name)) throw new Error(`unknown job ${name}`);
const config = loadConfig(process.env);
const now = new Date(process.env.TACK_TEST_NOW ?? Date.now());
const log = pino({ level: 'silent' });
const db = await connect({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
try {
  const result = await JOBS[name]({ db: db.db, slack: slackWebClient(config, log), clock: () => now, config, log });
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  await db.close();
}
