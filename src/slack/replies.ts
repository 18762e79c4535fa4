import type { Logger } from 'pino';
import { AppError } from '../domain/errors.js';
import { briefError } from '../log-error.js';
import { UsageError, type SlackReply } from './command-context.js';
import { messageView } from './views/blocks.js';

/**
 * The Slack mapping of errors, the one place that turns a thrown error into what the user
 * sees: usage text for a command that could not be read, an AppError's `user_message`
 * (with its field problems), and a generic apology for anything else, which is logged.
 */
export function errorReply(err: unknown, log: Logger): SlackReply {
  if (err instanceof UsageError) return messageView(err.problem ? `${err.problem}\n${err.usage}` : err.usage);
  if (err instanceof AppError) {
    // Each field error is a sentence naming its field; the one already said as user_message is not repeated.
    const fields = err.fields?.filter((f) => f.message !== err.userMessage).map((f) => `• ${f.message}`) ?? [];
    return messageView([err.userMessage, ...fields].join('\n'));
  }
  log.error({ error: briefError(err) }, 'Slack command failed');
  return messageView('Something went wrong on our side; try again in a moment.');
}
