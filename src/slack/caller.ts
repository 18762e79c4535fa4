import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import type { Principal } from '../domain/context.js';
import { zoneOrUtc } from '../domain/fields.js';
import { slackPrincipal, type SlackMember } from '../domain/slack-links.js';
import { callOperation } from '../operations/call.js';
import type { Caller } from './command-context.js';
import type { SlackDeps } from './deps.js';
import { profileLookup, resolveSlackMember } from './member-link.js';

/** A Slack user resolved to their tack member, with operations run as them. */
export interface SlackCaller {
  member: SlackMember;
  principal: Principal;
  call: Caller;
  /** The member's IANA time zone: the member's own, else their Slack profile's, else UTC. */
  timeZone(): Promise<string>;
}

/**
 * The tack member behind a Slack user (linked by id, or on first use by e-mail), ready to
 * run operations as them; undefined when the user is not linked (the caller says how to).
 * Every face of the Slack app (commands, buttons, modals, events) starts here.
 */
export async function slackCaller(deps: SlackDeps, client: WebClient, slackUserId: string, log: Logger): Promise<SlackCaller | undefined> {
  const rt = deps.runtime;
  const profile = profileLookup(client, slackUserId, log);
  const member = await resolveSlackMember(rt, deps.config.slack.org, slackUserId, profile);
  if (!member) return undefined;
  const principal = slackPrincipal(member);
  return {
    member,
    principal,
    call: (operation, input) => callOperation(rt, operation, principal, input),
    async timeZone() {
      if (member.tz) return member.tz;
      return zoneOrUtc((await profile())?.tz);
    },
  };
}
