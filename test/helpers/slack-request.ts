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
export function blockActionsBody(click: ButtonClick, action?: Record<string, unknown>): string {
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
      action ?? {
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
  return form(payload);
}

function form(payload: Record<string, unknown>): string {
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

/** A static_select choice in a message (`/card`'s status select), as `block_actions`. */
export function selectBody(choice: { user_id?: string; action_id: string; block_id: string; value: string; response_url: string; channel_id?: string }): string {
  return blockActionsBody(
    { user_id: choice.user_id, action_id: choice.action_id, value: choice.value, response_url: choice.response_url, channel_id: choice.channel_id },
    {
      type: 'static_select',
      action_id: choice.action_id,
      block_id: choice.block_id,
      selected_option: { text: { type: 'plain_text', text: choice.value, emoji: true }, value: choice.value },
      action_ts: `${Date.now() / 1000}`,
    },
  );
}

/** A button clicked in the app's Home tab (a `view` container: no message, no response_url). */
export function homeClickBody(click: { user_id: string; action_id: string; value: string; block_id?: string }): string {
  return form({
    type: 'block_actions',
    user: { id: click.user_id, username: 'steve', name: 'steve', team_id: TEAM.id },
    api_app_id: 'A123456',
    token: 'gIkuvaNzQIHg97ATvDxqgjtO',
    container: { type: 'view', view_id: 'VHOME' },
    trigger_id: `12466734323.1395872398.${randomBytes(16).toString('hex')}`,
    team: TEAM,
    enterprise: null,
    is_enterprise_install: false,
    view: { id: 'VHOME', type: 'home', blocks: [], private_metadata: '', callback_id: '', state: { values: {} }, hash: 'h', team_id: TEAM.id, app_id: 'A123456' },
    actions: [{ type: 'button', action_id: click.action_id, block_id: click.block_id ?? `todo:${click.value}`, text: { type: 'plain_text', text: 'Done' }, value: click.value, action_ts: `${Date.now() / 1000}` }],
  });
}

/** The `message_action` payload of a message shortcut (callback id `create_todo`). */
export function messageShortcutBody(s: { user_id?: string; channel_id?: string; text: string; ts?: string; response_url: string; callback_id?: string; trigger_id?: string }): string {
  const ts = s.ts ?? '1712000000.000100';
  return form({
    type: 'message_action',
    token: 'gIkuvaNzQIHg97ATvDxqgjtO',
    action_ts: `${Date.now() / 1000}`,
    team: TEAM,
    user: { id: s.user_id ?? 'U2147483697', username: 'steve', name: 'steve', team_id: TEAM.id },
    channel: { id: s.channel_id ?? 'C2147483705', name: 'test' },
    is_enterprise_install: false,
    enterprise: null,
    callback_id: s.callback_id ?? 'create_todo',
    trigger_id: s.trigger_id ?? `13345224609.738474920.${randomBytes(16).toString('hex')}`,
    response_url: s.response_url,
    message_ts: ts,
    message: { type: 'message', user: 'U0AUTHOR', ts, text: s.text },
  });
}

/** The `view_submission` payload of a modal, with its inputs' state as Slack sends it. */
export function viewSubmissionBody(v: { user_id?: string; callback_id: string; private_metadata: string; values: Record<string, Record<string, unknown>> }): string {
  return form({
    type: 'view_submission',
    team: TEAM,
    user: { id: v.user_id ?? 'U2147483697', username: 'steve', name: 'steve', team_id: TEAM.id },
    api_app_id: 'A123456',
    token: 'gIkuvaNzQIHg97ATvDxqgjtO',
    trigger_id: `12466734323.1395872398.${randomBytes(16).toString('hex')}`,
    view: {
      id: 'VMODAL',
      team_id: TEAM.id,
      type: 'modal',
      callback_id: v.callback_id,
      private_metadata: v.private_metadata,
      state: { values: v.values },
      hash: '156663117.cd33ad1f',
      title: { type: 'plain_text', text: 'New todo' },
      blocks: [],
      app_id: 'A123456',
      bot_id: 'BBOT',
    },
    response_urls: [],
    is_enterprise_install: false,
    enterprise: null,
  });
}

/** An Events API delivery (`event_callback`) of one event, as JSON. */
export function eventBody(event: Record<string, unknown>, eventId = `Ev${randomBytes(6).toString('hex').toUpperCase()}`): Record<string, unknown> {
  return {
    token: 'gIkuvaNzQIHg97ATvDxqgjtO',
    team_id: TEAM.id,
    api_app_id: 'A123456',
    event,
    type: 'event_callback',
    event_id: eventId,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [{ team_id: TEAM.id, user_id: 'UBOT', is_bot: true, is_enterprise_install: false }],
    is_ext_shared_channel: false,
  };
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
    /** Any interaction payload built above (form-encoded). */
    interaction: (body: string, options?: SendOptions) => send(body, 'application/x-www-form-urlencoded', options),
    event: (event: Record<string, unknown>, options?: SendOptions) => send(JSON.stringify(eventBody(event)), 'application/json', options),
  };
}
