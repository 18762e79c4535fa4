import type { types } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { message, problems, type Any } from './helpers/block-kit.js';
import { homeView, unlinkedHomeView } from '../src/slack/views/home.js';
import { messageView } from '../src/slack/views/blocks.js';
import { cardLinksBlocks, withCardLinks, type CardLinksView } from '../src/slack/views/card-links.js';
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
/** A card's pull requests at GitHub's longest: owner 39 characters, repository 100, title 256 (hostile). */
const OWNER = 'o'.repeat(39);
const REPO = 'r'.repeat(100);
const pullRequests = (n: number): CardLinksView =>
  Array.from({ length: n }, (_, i) => ({
    kind: 'github_pull_request' as const,
    url: `https://github.com/${OWNER}/${REPO}/pull/${i + 1}`,
    repository: `${OWNER}/${REPO}`,
    number: i + 1,
    title: long(256),
    state: (['open', 'draft', 'merged', 'closed'] as const)[i % 4]!,
    author_login: 'octo-ann',
    updated_at: '2026-01-01T00:00:00.000Z',
  }));
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
  ['cardView with 30 pull requests', () => message(withCardLinks(cardView({ ...card(1), description: DESCRIPTION }, { note: NAME, comments: 3 }), pullRequests(30)))],
  ['cardMovedView', () => message(cardMovedView(card(1)))],
  ['milestoneStatusView', () => message(milestoneStatusView(milestone(1)))],
  ['subscribedView', () => message(subscribedView(sub, { created: true }, 9))],
  ['subscriptionAnnouncementView', () => message(subscriptionAnnouncementView(sub, NAME, 9))],
  ['subscriptionRefusedView', () => message(subscriptionRefusedView(long(64), NAME))],
  ['subscriptionPausedView', () => message(subscriptionPausedView(long(64), 'C0123', NAME))],
  ['unsubscribedView', () => message(unsubscribedView(long(64)))],
  ['snippetView', () => message(snippetView(snippet))],
  ['cardUnfurl', () => problems(cardUnfurl('https://tack.example.com/cards/ENG-1', card(1)).blocks as Any[], 50)],
  ['cardUnfurl with 30 pull requests', () => problems(withCardLinks(cardUnfurl('https://tack.example.com/cards/ENG-1', card(1)), pullRequests(30)).blocks as Any[], 50)],
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

  it("lists only whole pull-request links, counting the ones that do not fit in '…and N more.'", () => {
    const [block] = cardLinksBlocks(pullRequests(30)) as Any[];
    const lines = (block!.elements[0].text as string).split('\n');
    const shown = lines.slice(0, -1);
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThanOrEqual(5);
    for (const l of shown) expect(l).toMatch(/^:twisted_rightwards_arrows: <https:\/\/github\.com\/[^|]+\|[^<>]+> · (open|draft|merged|closed)$/);
    expect(lines.at(-1)).toBe(`…and ${30 - shown.length} more.`);
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
