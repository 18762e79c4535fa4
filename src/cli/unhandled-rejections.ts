import type { Logger } from 'pino';

/**
 * Logs a promise rejection nobody handled instead of ending the process (Node's default).
 * A long-running server must not die of one: a known case is Slack's Socket Mode client,
 * whose reconnect rejects unobserved when Slack refuses it. A thrown exception (not a
 * rejection) still ends the process, as its state is then unknown.
 */
export function logUnhandledRejections(log: Pick<Logger, 'error'>): void {
  process.on('unhandledRejection', (reason) => {
    log.error({ err: reason }, 'unhandled promise rejection (logged; the process keeps running)');
  });
}
