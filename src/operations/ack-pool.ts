import type { Config } from '../config.js';
import { connect } from '../db/connect.js';
import type { Runtime } from './execute.js';

/** Connections for recording Slack deliveries before their ack, each running one batch of them (a group commit). */
export const ACK_POOL_SIZE = 2;

/**
 * The Slack ack's own small pool on a Postgres server: the delivery record an ack waits for
 * must never queue behind earlier commands' reads for a connection of the shared pool (Slack
 * gives up at 3 s). Its commits do not wait for the WAL flush: whatever the command then
 * writes commits after it, durably, and WAL order makes the record durable first; if the
 * database crashes before either is, a retry finds nothing done and acts once. Undefined on
 * PGlite, which has one connection anyway. Opened here so the Slack face never opens a pool
 * of `src/db` itself.
 */
export async function openAckPool(config: Pick<Config, 'databaseUrl' | 'dataDir' | 'database'>): Promise<{ db: Runtime['db']; close(): Promise<void> } | undefined> {
  const { databaseUrl } = config;
  if (!databaseUrl) return undefined;
  return connect({ databaseUrl, dataDir: config.dataDir, poolSize: ACK_POOL_SIZE, asyncCommit: true, timeouts: config.database.requests });
}
