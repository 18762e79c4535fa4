import type { types } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { homeView, unlinkedHomeView } from '../src/slack/views/home.js';
import { messageView } from '../src/slack/views/blocks.js';
import { cardMovedView, cardView, type CardView } from '../src/slack/views/cards.js';
import {
  milestoneStatusView,
  subscribedView,
  subscriptionAnnouncementView,
  subscriptionPausedView,
  subscriptionRefusedView,
  unsubscribedView,
  type MilestoneView,
  type SubscriptionView,
} from '../src/slack/views/milestones.js';
import { snippetView, type SnippetView } from '../src/slack/views/snippets.js';
import { helpView, reminderHourView, signinLinkView } from '../src/slack/views/tack.js';
import { todoModalView } from '../src/slack/views/todo-modal.js';
import { todoCreatedView, todoDigestView, todoDoneView, todoListView, todoSnoozedView, type DigestTodo } from '../src/slack/views/todos.js';
import { cardUnfurl, milestoneUnfurl, snippetUnfurl } from '../src/slack/views/unfurls.js';

/**
 * Every Slack view against Slack's published Block Kit limits (api.slack.com/reference/block-kit),
 * fed long and hostile text (mentions, markup, code fences, astral characters, thousands of
 * characters): block counts, text lengths, button and option texts, unique block and action
 * ids, and no mention or link smuggled in from user text.
 */

const HOSTILE = '<!channel> <@U0BOSS> <https://evil.example|click> & *bold* _it_ ```code``` | > quote 😀 ';
const long = (n: number) => HOSTILE.repeat(Math.ceil(n / HOSTILE.length)).slice(0, n);
const TITLE = long(300);
const NAME = long(5000);
/** A card's description at its longest (20,000 code points), Markdown and hostile text on many lines. */
const DESCRIPTION = `# <!here> heading\n\n${Array.from({ length: 400 }, (_, i) => `- [x](javascript:alert(${i})) <@U0${i}> ${HOSTILE}`).join('\n')}`.slice(0, 20_000);

const todo = (i: number, extra: Partial<DigestTodo> = {}): DigestTodo => ({
  id: `todo_${String(i).padStart(24, 'x')}`,
  title: TITLE,
  priority: 'urgent',
  due_on: '2026-01-01',
  done: false,
  source_url: `https://example.slack.com/archives/C1/p1?x=${long(1500)}`,
  card: { ref: `ENG-${i}`, title: NAME },
  ...extra,
});
const card = (i: number): CardView => ({
  id: `crd_${i}`,
  ref: `${long(60)}-${i}`,
  board_id: 'brd_1',
  title: NAME,
  workflow_status: 'in_progress',
  gated: true,
  criteria_done: 1,
  criteria_total: 2,
  due_on: '2026-01-01',
  assignee_ids: ['mem_1'],
  milestone: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
} as unknown as CardView);
const milestone = (i: number): MilestoneView => ({
  id: `ms_${i}`,
  ref: long(64),
  name: NAME,
  kind: 'sprint',
  cards_done: 1,
  cards_total: 2,
  criteria_done: 3,
  criteria_total: 4,
  ends_on: '2026-01-01',
  created_at: '2026-01-01T00:00:00.000Z',
});
const snippet: SnippetView = {
  id: 'snp_1',
  org_id: 'org_1',
  type: 'txt',
  name: NAME,
  slug: long(200),
  category: NAME,
  tags: Array.from({ length: 50 }, () => long(40)),
  visibility: 'team',
  version: 3,
  public_url: 'https://tack.example.com/p/abc',
  body: long(20_000),
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};
const sub: SubscriptionView = {
  id: 'sub_1',
  org_id: 'org_1',
  milestone_ref: long(64),
  channel_id: 'C0123',
  cadence: 'daily',
  tz: 'Europe/Berlin',
  created_by: 'mem_1',
  created_at: '2026-01-01T00:00:00.000Z',
  paused_at: null,
  paused_reason: null,
};

type Any = Record<string, any>;

/** Every problem Slack would refuse or mangle in a surface's blocks. */
function problems(blocks: Any[], maxBlocks: number): string[] {
  const out: string[] = [];
  const check = (ok: boolean, what: string) => void (ok || out.push(what));
  check(blocks.length <= maxBlocks, `${blocks.length} blocks > ${maxBlocks}`);
  const blockIds = blocks.map((b) => b.block_id).filter((id) => id !== undefined);
  check(new Set(blockIds).size === blockIds.length, 'block ids repeat');
  const text = (t: Any | undefined, max: number, where: string) => {
    if (!t) return;
    check(typeof t.text === 'string' && t.text.length > 0 && t.text.length <= max, `${where}: text of ${t.text?.length} characters (max ${max})`);
    // Users' < and > are escaped, so every < opens a link of ours: one cut short would show as broken text.
    if (t.type === 'mrkdwn' && typeof t.text === 'string') check(t.text.split('<').length === t.text.split('>').length, `${where}: a link cut open`);
    // A < that opens no link, mention or channel (`<ref>` in a usage line) is mangled by Slack.
    if (t.type === 'mrkdwn' && typeof t.text === 'string') check(!/<(?!https?:\/\/|mailto:|[@#!])/.test(t.text), `${where}: a < that opens no link: ${t.text.slice(0, 80)}`);
    if (t.type === 'mrkdwn') {
      // What users wrote is escaped: no mention, broadcast or link comes from it (a channel
      // link the app makes from Slack's own channel id is fine).
      check(!/<[!@]|<#(?![CG][A-Z0-9]+>)/.test(t.text), `${where}: a mention or broadcast in mrkdwn: ${t.text.slice(0, 80)}`);
      check(!t.text.includes('<https://evil.example'), `${where}: a link from user text`);
    }
  };
  const element = (e: Any, where: string) => {
    check(typeof e.action_id !== 'string' || e.action_id.length <= 255, `${where}: action_id too long`);
    if (e.type === 'button') {
      text(e.text, 75, `${where} button`);
      check(e.value === undefined || e.value.length <= 2000, `${where}: button value too long`);
      check(e.url === undefined || e.url.length <= 3000, `${where}: button url too long`);
    }
    if (e.type === 'static_select') {
      check(e.options.length <= 100, `${where}: too many options`);
      for (const o of e.options) text(o.text, 75, `${where} option`);
      text(e.placeholder, 150, `${where} placeholder`);
    }
    if (e.type === 'plain_text_input') {
      check(e.max_length === undefined || e.max_length <= 3000, `${where}: max_length`);
      check(e.initial_value === undefined || e.initial_value.length <= (e.max_length ?? 3000), `${where}: initial_value longer than max_length`);
    }
  };
  blocks.forEach((b, i) => {
    const where = `block ${i} (${b.type})`;
    check(b.block_id === undefined || b.block_id.length <= 255, `${where}: block_id too long`);
    const actionIds: string[] = [];
    if (b.type === 'section') {
      text(b.text, 3000, where);
      check((b.fields ?? []).length <= 10, `${where}: more than 10 fields`);
      for (const f of b.fields ?? []) text(f, 2000, `${where} field`);
      if (b.accessory) {
        element(b.accessory, where);
        if (b.accessory.action_id) actionIds.push(b.accessory.action_id);
      }
    }
    if (b.type === 'header') text(b.text, 150, where);
    if (b.type === 'context') {
      check(b.elements.length <= 10, `${where}: more than 10 elements`);
      for (const e of b.elements) text(e, 3000, `${where} element`);
    }
    if (b.type === 'actions') {
      check(b.elements.length <= 25, `${where}: more than 25 elements`);
      for (const e of b.elements) {
        element(e, where);
        actionIds.push(e.action_id);
      }
    }
    if (b.type === 'input') {
      text(b.label, 2000, `${where} label`);
      element(b.element, where);
    }
    // Slack: an action_id is unique within its block.
    check(new Set(actionIds).size === actionIds.length, `${where}: action ids repeat`);
  });
  return out;
}

/** Every text in blocks (sections, contexts, buttons…), added up. */
function textLength(node: unknown): number {
  if (Array.isArray(node)) return node.reduce((n: number, x) => n + textLength(x), 0);
  if (node === null || typeof node !== 'object') return 0;
  return Object.entries(node).reduce((n, [key, value]) => n + (key === 'text' && typeof value === 'string' ? value.length : textLength(value)), 0);
}

function message(reply: { text: string; blocks?: types.KnownBlock[] }): string[] {
  const out = problems((reply.blocks ?? []) as Any[], 50);
  // Not in Slack's reference, but chat.postMessage refuses blocks whose texts add up past
  // about 12,000 characters (msg_blocks_too_long; slackapi/bolt-js#2509).
  const total = textLength(reply.blocks ?? []);
  if (total > 12_000) out.push(`blocks' texts add up to ${total} characters`);
  if (reply.text.length > 3000 || /<[!@#]/.test(reply.text)) out.push(`fallback text: ${reply.text.slice(0, 80)}`);
  return out;
}

const views: [string, () => string[]][] = [
  ['messageView', () => message(messageView(NAME))],
  ['helpView', () => message(helpView())],
  ['signinLinkView', () => message(signinLinkView({ url: `https://tack.example.com/signin?code=${'a'.repeat(43)}`, expires_at: '2026-01-01T00:15:00.000Z' }))],
  ['reminderHourView', () => message(reminderHourView(23, 9, true))],
  ['todoListView', () => message(todoListView(Array.from({ length: 100 }, (_, i) => todo(i)), { note: NAME, heading: NAME, truncated: true }))],
  ['todoCreatedView', () => message(todoCreatedView(todo(1)))],
  ['todoDoneView', () => message(todoDoneView(todo(1)))],
  ['todoSnoozedView', () => message(todoSnoozedView(todo(1)))],
  ['todoDigestView of 25', () => message(todoDigestView(Array.from({ length: 25 }, (_, i) => todo(i, { due_on: '2025-12-31' })), '2026-01-01'))],
  ['todoDigestView, done and snoozed', () => message(todoDigestView([todo(1, { done: true }), todo(2, { snoozed: true }), todo(3)], '2026-01-01'))],
  ['cardView', () => message(cardView(card(1), { note: NAME }))],
  ['cardView with a hostile description and comments', () => message(cardView({ ...card(1), description: DESCRIPTION }, { note: NAME, comments: 123_456 }))],
  ['cardView with a one-line 20,000-character description', () => message(cardView({ ...card(1), description: long(20_000).replace(/\n/g, ' ') }, { comments: 1 }))],
  ['cardMovedView', () => message(cardMovedView(card(1)))],
  ['milestoneStatusView', () => message(milestoneStatusView(milestone(1)))],
  ['subscribedView', () => message(subscribedView(sub, { created: true }, 9))],
  ['subscriptionAnnouncementView', () => message(subscriptionAnnouncementView(sub, NAME, 9))],
  ['subscriptionRefusedView', () => message(subscriptionRefusedView(long(64), NAME))],
  ['subscriptionPausedView', () => message(subscriptionPausedView(long(64), 'C0123', NAME))],
  ['unsubscribedView', () => message(unsubscribedView(long(64)))],
  ['snippetView', () => message(snippetView(snippet))],
  ['cardUnfurl', () => problems(cardUnfurl('https://tack.example.com/cards/ENG-1', card(1)).blocks as Any[], 50)],
  ['milestoneUnfurl', () => problems(milestoneUnfurl('https://tack.example.com/milestones/M1', milestone(1)).blocks as Any[], 50)],
  ['snippetUnfurl', () => problems(snippetUnfurl('https://tack.example.com/snippets/x', snippet).blocks as Any[], 50)],
  [
    'homeView',
    () =>
      problems(
        homeView({
          todos: Array.from({ length: 200 }, (_, i) => todo(i)),
          todosTruncated: true,
          cards: Array.from({ length: 200 }, (_, i) => card(i)),
          cardsTruncated: true,
          milestones: Array.from({ length: 200 }, (_, i) => milestone(i)),
        }).blocks as Any[],
        100,
      ),
  ],
  ['homeView, empty', () => problems(homeView({ todos: [], todosTruncated: false, cards: [], cardsTruncated: false, milestones: [] }).blocks as Any[], 100)],
  ['unlinkedHomeView', () => problems(unlinkedHomeView('U0NOBODY').blocks as Any[], 100)],
  [
    'todoModalView',
    () => {
      const view = todoModalView({ title: NAME, source_url: `https://example.slack.com/archives/C1/p1?${long(1900)}`, response_url: 'https://hooks.slack.com/actions/T1/1/abc' });
      const out = problems(view.blocks as Any[], 100);
      for (const t of [view.title, view.submit, view.close]) if (!t || t.text.length > 24) out.push(`modal text ${t?.text}`);
      if ((view.private_metadata ?? '').length > 3000) out.push('private_metadata over 3000');
      if (view.callback_id !== 'create_todo') out.push('callback_id');
      return out;
    },
  ],
];

describe("Block Kit within Slack's limits, with long and hostile text", () => {
  for (const [name, check] of views) {
    it(name, () => expect(check()).toEqual([]));
  }

  it("shows a description's first lines as plain text: no markup, mention or link of its own, cut with …, and the comment count", () => {
    const reply = cardView({ ...card(1), description: DESCRIPTION }, { comments: 3 });
    const texts = (reply.blocks ?? []).map((b: Any) => b.text?.text ?? b.elements?.map((e: Any) => e.text).join(' ') ?? '');
    const preview = texts.find((x: string) => x.includes('heading'))!;
    expect(preview.split('\n')).toHaveLength(5);
    expect(preview).not.toMatch(/[<*`~]/);
    expect(preview.endsWith('…')).toBe(true);
    expect(texts).toContain('3 comments');
    expect(cardView({ ...card(1), description: null }, { comments: 1 }).blocks!.length).toBe(cardView(card(1)).blocks!.length + 1);
  });

  it('the checker itself catches what it checks for', () => {
    const bad: Any[] = [
      { type: 'section', block_id: 'a', text: { type: 'mrkdwn', text: `hi <!channel>` }, accessory: { type: 'button', action_id: 'x', text: { type: 'plain_text', text: 'b'.repeat(76) } } },
      { type: 'actions', block_id: 'a', elements: [{ type: 'button', action_id: 'y', text: { type: 'plain_text', text: 'ok' } }, { type: 'button', action_id: 'y', text: { type: 'plain_text', text: 'ok' } }] },
      { type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } },
      { type: 'section', block_id: 'c', text: { type: 'mrkdwn', text: 'see <https://example.com/a-very-long-url…' } },
    ];
    expect(problems(bad, 2)).toHaveLength(7);
    const long = Array.from({ length: 5 }, (_, i): Any => ({ type: 'section', block_id: `s${i}`, text: { type: 'mrkdwn', text: 'x'.repeat(2_500) } }));
    expect(message({ text: 'hi', blocks: long as types.KnownBlock[] })).toEqual(["blocks' texts add up to 12500 characters"]);
  });
});
