import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { classifySlackError, describeSlackFailure } from './slack-errors.js';

/**
 * Asks Slack once at start whether the bot token works (auth.test), so a revoked or wrong
 * token shows in the log at once rather than at the next reminder. Never throws: the
 * server serves /v1 either way, and the jobs hold what is due until the token works.
 */
export async function checkBotToken(slack: WebClient, log: Logger): Promise<void> {
  const slackLog = log.child({ component: 'slack' });
  try {
    const res = await slack.auth.test();
    slackLog.info({ team: res.team, bot_user: res.user_id }, 'Slack accepted the bot token');
  } catch (err) {
    const failure = classifySlackError(err);
    if (failure.kind === 'token') {
      slackLog.error(
        { slack_error: failure.error, ...(failure.needed ? { needed_scope: failure.needed } : {}) },
        `Slack refused the bot token (${failure.error}, checked with auth.test at start): reminders and summaries ` +
          'are held, not lost, until SLACK_BOT_TOKEN works again; slash commands cannot answer meanwhile.',
      );
    } else {
      slackLog.warn({ slack_error: describeSlackFailure(failure) }, 'could not check the Slack bot token at start (auth.test); the jobs will say if Slack refuses it');
    }
  }
}
