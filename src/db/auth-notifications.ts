import type pg from 'pg';
import type { Logger } from 'pino';

const CHANNEL = 'tack_auth_changed';

/**
 * Tells every tack process on the same Postgres that tokens or members changed, so each
 * drops its cached principals. Returns `notify` and a `stop` function.
 */
export function authNotifications(pool: pg.Pool, onChange: () => void, log: Logger): { notify: () => void; stop: () => Promise<void> } {
  let client: pg.PoolClient | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  const listen = async () => {
    if (stopped) return;
    try {
      const c = await pool.connect();
      client = c;
      c.on('notification', (msg) => {
        if (msg.channel === CHANNEL) onChange();
      });
      c.on('error', () => {
        client = undefined;
        c.release(true);
        // Anything may have changed while we were deaf.
        onChange();
        schedule();
      });
      await c.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'cannot listen for auth changes yet; retrying');
      schedule();
    }
  };
  const schedule = () => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void listen();
    }, 1_000);
    retry.unref();
  };
  void listen();

  return {
    notify() {
      pool.query(`NOTIFY ${CHANNEL}`).catch((err: Error) => log.warn({ err: err.message }, 'auth change notification failed'));
    },
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      if (client) {
        const c = client;
        client = undefined;
        try {
          await c.query(`UNLISTEN ${CHANNEL}`);
        } catch {
          /* closing anyway */
        }
        c.release();
      }
    },
  };
}
