import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import type { Principal } from '../domain/context.js';
import { slackPrincipal, type SlackMember } from '../domain/slack-links.js';
import { memberZone } from '../domain/time-zone.js';
import { callOperation } from '../operations/call.js';
import type { Caller } from './command-context.js';
import type { SlackDeps } from './deps.js';
import { profileLookup, resolveSlackMember } from './member-link.js';
import { profileZoneOf } from './profile-zones.js';

/** A Slack user resolved to their tack member, with operations run as them. */
export interface SlackCaller {
  member: SlackMember;
  principal: Principal;
  call: Caller;
  /** The member's IANA time zone by the domain's one rule (`memberZone`): their own, else their Slack profile's, else UTC. */
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
  // The profile's zone is handed to the domain with the principal; Slack is asked only when a
  // day is to be read and the member set no zone of their own, and then at most every 15 minutes.
  const profileZone = () => profileZoneOf(slackUserId, profile);
  const principal = { ...slackPrincipal(member), ...(member.tz ? {} : { slackProfileZone: profileZone }) };
  return {
    member,
    principal,
    call: (operation, input) => callOperation(rt, operation, principal, input),
    async timeZone() {
      return memberZone(member.tz, member.tz ? undefined : await profileZone());
    },
  };
}
