import { createHmac, randomBytes } from 'node:crypto';

/**
 * Requests shaped like Slack's documented payloads, signed the way Slack signs them
 * (v0 HMAC-SHA256 of `v0:{timestamp}:{raw body}`), sent to a running server over HTTP.
 */

export interface SlackResponse {
  status: number;
  text: string;
  body: any;
  headers: Headers;
}

export interface SendOptions {
  /** Unix seconds; now by default. */
  timestamp?: number;
  /** Replaces the computed signature. */
  signature?: string;
  /** Leave these headers out. */
  omit?: ('x-slack-signature' | 'x-slack-request-timestamp')[];
  headers?: Record<string, string>;
}

export function sign(secret: string, timestamp: number | string, rawBody: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`;
}

export const TEAM = { id: 'T0001', domain: 'example' };

/** The fields of a slash command invocation, as Slack posts them (form-encoded). */
export interface CommandFields {
  command: string;
  text?: string;
  user_id?: string;
  user_name?: string;
  channel_id?: string;
  channel_name?: string;
  response_url: string;
  trigger_id?: string;
}

export function commandBody(f: CommandFields): string {
  return new URLSearchParams({
    token: 'gIkuvaNzQIHg97ATvDxqgjtO',
    team_id: TEAM.id,
    team_domain: TEAM.domain,
    channel_id: f.channel_id ?? 'C2147483705',
    channel_name: f.channel_name ?? 'test',
    user_id: f.user_id ?? 'U2147483697',
    user_name: f.user_name ?? 'steve',
    command: f.command,
    text: f.text ?? '',
    api_app_id: 'A123456',
    is_enterprise_install: 'false',
    response_url: f.response_url,
    trigger_id: f.trigger_id ?? `13345224609.738474920.${randomBytes(16).toString('hex')}`,
  }).toString();
}

export interface ButtonClick {
  user_id?: string;
  action_id: string;
  value: string;
  block_id?: string;
  response_url: string;
  channel_id?: string;
  /** The message the button sat in (absent for ephemeral messages, as Slack does). */
  message?: { ts: string; text?: string; blocks?: unknown[] };
}

/** A `block_actions` interaction payload for one button click, form-encoded as `payload=`. */
export function blockActionsBody(click: ButtonClick): string {
  const channel = click.channel_id ?? 'C2147483705';
  const payload: Record<string, unknown> = {
    type: 'block_actions',
    user: { id: click.user_id ?? 'U2147483697', username: 'steve', name: 'steve', team_id: TEAM.id },
    api_app_id: 'A123456',
    token: 'gIkuvaNzQIHg97ATvDxqgjtO',
    container: click.message
      ? { type: 'message', message_ts: click.message.ts, channel_id: channel, is_ephemeral: false }
      : { type: 'message', message_ts: '1548261231.000200', channel_id: channel, is_ephemeral: true },
    trigger_id: `12466734323.1395872398.${randomBytes(16).toString('hex')}`,
    team: TEAM,
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: channel, name: 'test' },
    state: { values: {} },
    response_url: click.response_url,
    actions: [
      {
        type: 'button',
        action_id: click.action_id,
        block_id: click.block_id ?? `todo:${click.value}`,
        text: { type: 'plain_text', text: 'Done', emoji: true },
        value: click.value,
        style: 'primary',
        action_ts: `${Date.now() / 1000}`,
      },
    ],
  };
  if (click.message) payload.message = { type: 'message', user: 'UBOT', bot_id: 'BBOT', ...click.message };
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/** A client for `POST /slack/events` on a running server. */
export function slackClient(baseUrl: string, secret: string) {
  const send = async (rawBody: string, contentType: string, options: SendOptions = {}): Promise<SlackResponse> => {
    const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      'content-type': contentType,
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': options.signature ?? sign(secret, timestamp, rawBody),
      ...options.headers,
    };
    for (const name of options.omit ?? []) delete headers[name];
    const res = await fetch(`${baseUrl}/slack/events`, { method: 'POST', headers, body: rawBody });
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    return { status: res.status, text, body, headers: res.headers };
  };
  return {
    send,
    form: (rawBody: string, options?: SendOptions) => send(rawBody, 'application/x-www-form-urlencoded', options),
    json: (value: unknown, options?: SendOptions) => send(JSON.stringify(value), 'application/json', options),
    command: (fields: CommandFields, options?: SendOptions) => send(commandBody(fields), 'application/x-www-form-urlencoded', options),
    click: (click: ButtonClick, options?: SendOptions) => send(blockActionsBody(click), 'application/x-www-form-urlencoded', options),
  };
}
