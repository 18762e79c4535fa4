import type { WebClient } from '@slack/web-api';
import { forgetDmChannel, keepDmChannel, keptDmChannel } from '../src/domain/slack-dm-channels.js';
import { writeTransaction } from '../src/operations/write-transaction.js';
import type { JobDeps } from './deps.js';

/** A Slack user's DM with the bot, opened at most once (see `slack_dm_channels`). */
export interface DirectMessage {
  /** The channel: the kept one, else opened now (conversations.open) and kept. */
  channel(): Promise<string>;
  /** A post into it failed: if the channel was a kept one, forget it (it is opened again next time). */
  failed(): Promise<void>;
}

/**
 * The DM of `slackUserId`: `known` is the kept channel when the caller read it already (the
 * reminders read it with the due todos); undefined reads it here.
 */
export function directMessage(deps: Pick<JobDeps, 'db' | 'clock'>, slack: WebClient, slackUserId: string, known?: string | null): DirectMessage {
  let kept = known ?? undefined;
  let looked = known !== undefined;
  let used: string | undefined;
  return {
    async channel() {
      if (!looked) {
        kept = await keptDmChannel(deps.db, slackUserId);
        looked = true;
      }
      if (kept) {
        used = kept;
        return kept;
      }
      const res = await slack.conversations.open({ users: slackUserId });
      const id = res.channel?.id;
      if (!id) throw new Error('conversations.open returned no channel');
      await writeTransaction(deps, (trx) => keepDmChannel(trx, slackUserId, id, deps.clock()));
      return id;
    },
    async failed() {
      if (used) await writeTransaction(deps, (trx) => forgetDmChannel(trx, slackUserId, used!));
    },
  };
}
