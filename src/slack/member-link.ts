import type { WebClient } from '@slack/web-api';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/schema.js';
import { findSlackMember, linkSlackMemberByEmail, type SlackMember } from '../domain/slack-links.js';

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
 */
export async function resolveSlackMember(
  db: Kysely<Database>,
  orgSlug: string,
  slackUserId: string,
  profile: ProfileLookup,
  now: Date,
): Promise<SlackMember | undefined> {
  const linked = await findSlackMember(db, orgSlug, slackUserId);
  if (linked) return linked;
  const email = (await profile())?.email;
  if (!email) return undefined;
  return linkSlackMemberByEmail(db, orgSlug, slackUserId, email, now);
}
