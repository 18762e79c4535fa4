import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { uniqueViolation } from '../domain/db-errors.js';
import { findSlackMember, linkSlackMemberByEmail, type SlackMember } from '../domain/slack-links.js';
import type { Runtime } from '../operations/execute.js';
import { writeTransaction } from '../operations/write-transaction.js';

/** What Slack's `users.info` tells about a user, fetched at most once per delivery. */
export interface SlackProfile {
  email: string | undefined;
  tz: string | undefined;
}

export type ProfileLookup = () => Promise<SlackProfile | undefined>;

/** `users.info` for one user, memoised; a failure (missing scope, Slack down) is "unknown". */
export function profileLookup(client: WebClient, slackUserId: string, log: Logger): ProfileLookup {
  let pending: Promise<SlackProfile | undefined> | undefined;
  return () => {
    pending ??= client.users.info({ user: slackUserId }).then(
      (res) => ({ email: res.user?.profile?.email || undefined, tz: res.user?.tz || undefined }),
      (err: unknown) => {
        log.warn({ err: (err as Error).message, slackUserId }, 'Slack users.info failed');
        return undefined;
      },
    );
    return pending;
  };
}

/**
 * The tack member behind a Slack user: by `slack_user_id`, else (first use) by the e-mail of
 * their Slack profile, which needs the `users:read.email` scope. Undefined: not linked.
 * Linking is a member write like any other: its own transaction, and every process's cache
 * of principals dropped on its commit.
 */
export async function resolveSlackMember(rt: Runtime, orgSlug: string, slackUserId: string, profile: ProfileLookup): Promise<SlackMember | undefined> {
  const linked = await findSlackMember(rt.db, orgSlug, slackUserId);
  if (linked) return linked;
  const email = (await profile())?.email;
  if (!email) return undefined;
  try {
    return await writeTransaction(rt, async (trx, scope) => {
      const member = await linkSlackMemberByEmail(trx, orgSlug, slackUserId, email, rt.clock());
      if (member) await scope.authChanged();
      return member;
    });
  } catch (err) {
    // Two first commands of the same user at once: the other one linked them already.
    if (uniqueViolation(err) !== undefined) return findSlackMember(rt.db, orgSlug, slackUserId);
    throw err;
  }
}
