import { setTimeout as sleep } from 'node:timers/promises';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { databaseFailure } from '../domain/database-failures.js';
import { findSlackMember, linkSlackMemberByEmail, type SlackMember } from '../domain/slack-links.js';
import type { Runtime } from '../operations/execute.js';
import { writeTransaction } from '../operations/write-transaction.js';
import { classifySlackError } from './slack-errors.js';

/** What Slack's `users.info` tells about a user, fetched at most once per delivery. */
export interface SlackProfile {
  email: string | undefined;
  /** Slack says the user confirmed `email` (`user.is_email_confirmed`). */
  emailConfirmed: boolean;
  tz: string | undefined;
}

export type ProfileLookup = () => Promise<SlackProfile | undefined>;

// A users.info 429 asking to wait at most this long is waited out by the lookup itself.
const SHORT_RETRY_AFTER_SEC = 3;

async function usersInfo(client: WebClient, slackUserId: string): Promise<SlackProfile> {
  const read = async () => {
    const res = await client.users.info({ user: slackUserId });
    return { email: res.user?.profile?.email || undefined, emailConfirmed: res.user?.is_email_confirmed === true, tz: res.user?.tz || undefined };
  };
  try {
    return await read();
  } catch (err) {
    // The client refuses 429s rather than pausing for everyone (see boltClientOptions): this
    // one lookup waits a short Retry-After and asks once more.
    const failure = classifySlackError(err);
    if (failure.kind !== 'rate_limited' || failure.retryAfterSec > SHORT_RETRY_AFTER_SEC) throw err;
    await sleep(failure.retryAfterSec * 1000);
    return read();
  }
}

/** `users.info` for one user, memoised; a failure (missing scope, Slack down, rate limited) is "unknown". */
export function profileLookup(client: WebClient, slackUserId: string, log: Logger): ProfileLookup {
  let pending: Promise<SlackProfile | undefined> | undefined;
  return () => {
    pending ??= usersInfo(client, slackUserId).catch((err: unknown) => {
      log.warn({ err: (err as Error).message, slackUserId }, 'Slack users.info failed');
      return undefined;
    });
    return pending;
  };
}

/**
 * The tack member behind a Slack user: by `slack_user_id`, else (first use) by the confirmed
 * e-mail of their Slack profile (members and viewers only: see `linkSlackMemberByEmail`),
 * which needs the `users:read.email` scope. Undefined: not linked.
 * Linking is a member write like any other: its own transaction, and every process's cache
 * of principals dropped on its commit.
 */
export async function resolveSlackMember(rt: Runtime, orgSlug: string, slackUserId: string, profile: ProfileLookup): Promise<SlackMember | undefined> {
  const linked = await findSlackMember(rt.db, orgSlug, slackUserId);
  if (linked) return linked;
  const found = await profile();
  if (!found?.email) return undefined;
  const email = { address: found.email, confirmed: found.emailConfirmed };
  try {
    return await writeTransaction(rt, async (trx, scope) => {
      const member = await linkSlackMemberByEmail(trx, orgSlug, slackUserId, email, rt.clock());
      if (member) await scope.authChanged();
      return member;
    });
  } catch (err) {
    // Two first commands of the same user at once: the other one linked them already.
    if (databaseFailure(err) === 'duplicate') return findSlackMember(rt.db, orgSlug, slackUserId);
    throw err;
  }
}
