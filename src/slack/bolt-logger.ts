import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from 'pino';
import { briefError } from '../log-error.js';

// Bolt and the Web API client log with variadic arguments (strings, errors, objects).
type Args = unknown[];

function write(log: Logger, level: 'debug' | 'info' | 'warn' | 'error', args: Args): void {
  const err = args.find((a): a is Error => a instanceof Error);
  const text = args
    .filter((a) => a !== err)
    .map((a) => (typeof a === 'string' ? a : JSON.stringify(a)))
    .join(' ');
  if (!err) return log[level](text);
  // One short record, as everywhere (a Web API error carries Slack's whole answer and a stack).
  const brief = briefError(err);
  log[level]({ error: brief }, text || brief.message);
}

/** Bolt's logger interface over the server's pino logger; levels are pino's business. */
export function boltLogger(log: Logger): BoltLogger {
  const child = log.child({ component: 'slack' });
  return {
    debug: (...args: Args) => write(child, 'debug', args),
    info: (...args: Args) => write(child, 'info', args),
    warn: (...args: Args) => write(child, 'warn', args),
    error: (...args: Args) => write(child, 'error', args),
    setLevel: () => {},
    getLevel: () => LogLevel.INFO,
    setName: () => {},
  };
}
