import pino, { type Logger } from 'pino';

/**
 * The process's logger: JSON lines for machines, or, when stdout is a terminal, the same
 * records as readable lines (pino-pretty, loaded only then). Written synchronously in both
 * cases, so a log line and a plain line printed next to it (the bootstrap token) keep their order.
 */
export async function createLogger(level: string, pretty: boolean = process.stdout.isTTY === true): Promise<Logger> {
  if (!pretty) return pino({ level });
  const { default: prettyStream } = await import('pino-pretty');
  return pino({ level }, prettyStream({ sync: true, colorize: true, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' }));
}
