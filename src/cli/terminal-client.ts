import { ApiClient, type RetryWait } from '../client/api-client.js';
import type { ClientTarget } from '../client/target.js';

/**
 * The `/v1` client of a command a person runs: it waits out a rate limit (and a 503 that
 * asks to come back later) and retries, saying on stderr how long, so a wait is never
 * silence; Ctrl-C ends it.
 */
export function terminalClient(target: ClientTarget): ApiClient {
  return new ApiClient(target, { onWait: sayWait });
}

export function sayWait(wait: RetryWait, write: (text: string) => void = (text) => process.stderr.write(text)): void {
  const seconds = Math.max(1, Math.ceil(wait.ms / 1000));
  if (wait.status === 429) write(`tack: rate limited, retrying in ${seconds} s; Ctrl-C to stop\n`);
  else if (wait.ms >= 1000) write(`tack: the server is busy (${wait.code}), retrying in ${seconds} s; Ctrl-C to stop\n`);
}
