import { describe, expect, it } from 'vitest';
import { parseCardCommand } from '../commands/card.js';
import { parseWorkflowStatus } from '../src/vocabulary.js';
import { parseMilestoneCommand } from '../commands/milestone.js';
import { parseSnippetCommand } from '../commands/snippet.js';
import { parseTodoCommand } from '../commands/todo.js';
import { resolveDueDate } from '../src/domain/todo-due.js';
import { UsageError } from '../src/slack/command-context.js';
import { deliveryIdentity } from '../src/slack/dedupe.js';
import { parseSlackBody } from '../src/slack/payload.js';
import { checkSlackSignature } from '../src/slack/signature.js';
import { clip } from '../src/slack/views/blocks.js';
import { milestoneStatusView } from '../src/slack/views/milestones.js';
import { fitBody, snippetView } from '../src/slack/views/snippets.js';
import { todoListView } from '../src/slack/views/todos.js';
import { sign } from './helpers/slack-request.js';

function usage(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    if (err instanceof UsageError) return err;
    throw err;
  }
  throw new Error('expected a UsageError');
}

describe('/milestone', () => {
  it('reads status, subscribe and unsubscribe', () => {
    expect(parseMilestoneCommand('M3')).toEqual({ kind: 'status', ref: 'M3' });
    expect(parseMilestoneCommand('  M3   status ')).toEqual({ kind: 'status', ref: 'M3' });
    expect(parseMilestoneCommand('M3 STATUS')).toEqual({ kind: 'status', ref: 'M3' });
    expect(parseMilestoneCommand('M3 subscribe')).toEqual({ kind: 'subscribe', ref: 'M3', cadence: 'weekly' });
    expect(parseMilestoneCommand('M3 subscribe daily')).toEqual({ kind: 'subscribe', ref: 'M3', cadence: 'daily' });
    expect(parseMilestoneCommand('M3 Subscribe Weekly')).toEqual({ kind: 'subscribe', ref: 'M3', cadence: 'weekly' });
    expect(parseMilestoneCommand('Q3_launch unsubscribe')).toEqual({ kind: 'unsubscribe', ref: 'Q3_launch' });
  });

  it('refuses anything else with the usage', () => {
    for (const text of ['', '   ', 'help', 'M3 status now', 'M3 subscribe hourly', 'M3 subscribe daily please', 'M3 unsubscribe all', 'M3 delete']) {
      expect(usage(() => parseMilestoneCommand(text)).usage, text).toContain('/milestone <ref> subscribe');
    }
    expect(usage(() => parseMilestoneCommand('M3 delete')).problem).toBe('Unknown action "delete".');
    expect(usage(() => parseMilestoneCommand('x'.repeat(65))).problem).toContain('is not a milestone ref');
  });
});

describe('/todo', () => {
  it('reads the list', () => {
    expect(parseTodoCommand('')).toEqual({ kind: 'list' });
    expect(parseTodoCommand('list')).toEqual({ kind: 'list' });
  });

  it('reads add with its title, due date and priority in any order', () => {
    expect(parseTodoCommand('add Pay the rent')).toEqual({ kind: 'add', title: 'Pay the rent' });
    expect(parseTodoCommand('add Pay the rent due:2026-12-01 !urgent')).toEqual({
      kind: 'add',
      title: 'Pay the rent',
      due: '2026-12-01',
      priority: 'urgent',
    });
    expect(parseTodoCommand('ADD !high Ship it due:tomorrow')).toEqual({ kind: 'add', title: 'Ship it', due: 'tomorrow', priority: 'high' });
    expect(parseTodoCommand('add call Bo DUE:Today !LOW')).toEqual({ kind: 'add', title: 'call Bo', due: 'today', priority: 'low' });
    // Words that only look like options stay in the title.
    expect(parseTodoCommand('add fix !important bug before due date')).toEqual({ kind: 'add', title: 'fix !important bug before due date' });
  });

  it('reads add alone as the form (the todo modal)', () => {
    expect(parseTodoCommand('add')).toEqual({ kind: 'form' });
    expect(parseTodoCommand('  ADD  ')).toEqual({ kind: 'form' });
  });

  it('reads done with one id', () => {
    expect(parseTodoCommand('done todo_abc123')).toEqual({ kind: 'done', id: 'todo_abc123' });
  });

  it('refuses bad input with the usage and what is wrong', () => {
    expect(usage(() => parseTodoCommand('add due:today !high')).problem).toBe('A todo needs a title.');
    expect(usage(() => parseTodoCommand('add x due:2026-02-30')).problem).toContain('is not a date');
    expect(usage(() => parseTodoCommand('add x due:next-week')).problem).toContain('due:YYYY-MM-DD');
    expect(usage(() => parseTodoCommand('add x !high !low')).problem).toBe('Give at most one priority.');
    expect(usage(() => parseTodoCommand('add x due:today due:tomorrow')).problem).toBe('Give at most one due date.');
    expect(usage(() => parseTodoCommand('done')).problem).toContain('one todo id');
    expect(usage(() => parseTodoCommand('done a b')).problem).toContain('one todo id');
    expect(usage(() => parseTodoCommand('list everything')).usage).toContain('/todo add <title>');
    expect(usage(() => parseTodoCommand('remove x')).problem).toBe('Unknown action "remove".');
  });

  it("resolves today and tomorrow in the caller's time zone", () => {
    const now = new Date('2026-03-10T23:30:00Z');
    expect(resolveDueDate('today', now, 'UTC')).toBe('2026-03-10');
    expect(resolveDueDate('today', now, 'Europe/Berlin')).toBe('2026-03-11');
    expect(resolveDueDate('tomorrow', now, 'Europe/Berlin')).toBe('2026-03-12');
    expect(resolveDueDate('today', now, 'America/Los_Angeles')).toBe('2026-03-10');
    expect(resolveDueDate('2027-01-01', now, 'Asia/Tokyo')).toBe('2027-01-01');
    // Across a DST change (Berlin springs forward on 2026-03-29).
    expect(resolveDueDate('tomorrow', new Date('2026-03-28T23:30:00Z'), 'Europe/Berlin')).toBe('2026-03-30');
  });
});

describe('/card', () => {
  it('reads show and move, statuses leniently', () => {
    expect(parseCardCommand('ENG-42')).toEqual({ kind: 'show', ref: 'ENG-42' });
    expect(parseCardCommand('ENG-42 move done')).toEqual({ kind: 'move', ref: 'ENG-42', status: 'done' });
    expect(parseCardCommand('ENG-42 MOVE In Progress')).toEqual({ kind: 'move', ref: 'ENG-42', status: 'in_progress' });
    for (const [text, status] of [
      ['in-progress', 'in_progress'],
      ['in_progress', 'in_progress'],
      ['inprogress', 'in_progress'],
      ['review', 'in_review'],
      ['in-review', 'in_review'],
      ['In Review', 'in_review'],
      ['backlog', 'backlog'],
      ['DONE', 'done'],
    ] as const) {
      expect(parseWorkflowStatus(text), text).toBe(status);
    }
    expect(parseWorkflowStatus('sideways')).toBeUndefined();
  });

  it('refuses bad input with the usage', () => {
    expect(usage(() => parseCardCommand('')).usage).toContain('/card <ref> move <status>');
    expect(usage(() => parseCardCommand('ENG-42 move')).problem).toContain('Say where to');
    expect(usage(() => parseCardCommand('ENG-42 move sideways')).problem).toContain('"sideways" is not a status');
    expect(usage(() => parseCardCommand('ENG-42 delete')).problem).toBe('Unknown action "delete".');
  });
});

describe('/snippet', () => {
  it('reads one slug or id', () => {
    expect(parseSnippetCommand('deploy-checklist')).toEqual({ kind: 'show', id: 'deploy-checklist' });
    expect(parseSnippetCommand(' snp_abc ')).toEqual({ kind: 'show', id: 'snp_abc' });
  });
  it('refuses nothing or several words', () => {
    expect(usage(() => parseSnippetCommand('')).usage).toContain('/snippet <slug or id>');
    expect(usage(() => parseSnippetCommand('a b')).usage).toContain('/snippet <slug or id>');
  });
});

describe('signature check', () => {
  const secret = 'shhh';
  const rawBody = Buffer.from('token=x&command=%2Ftodo&text=');
  const now = new Date('2026-05-01T12:00:00Z');
  const ts = String(Math.floor(now.getTime() / 1000));

  it("accepts Slack's signature and refuses anything else", () => {
    const good = sign(secret, ts, rawBody.toString());
    expect(checkSlackSignature({ signingSecret: secret, rawBody, signature: good, timestamp: ts, now })).toBeUndefined();
    expect(checkSlackSignature({ signingSecret: 'other', rawBody, signature: good, timestamp: ts, now })).toBe('bad_signature');
    expect(checkSlackSignature({ signingSecret: secret, rawBody, signature: good.slice(0, -1), timestamp: ts, now })).toBe('bad_signature');
    expect(checkSlackSignature({ signingSecret: secret, rawBody, signature: undefined, timestamp: ts, now })).toBe('missing_headers');
    expect(checkSlackSignature({ signingSecret: secret, rawBody, signature: good, timestamp: undefined, now })).toBe('missing_headers');
    expect(checkSlackSignature({ signingSecret: secret, rawBody, signature: good, timestamp: 'soon', now })).toBe('stale_timestamp');
  });

  it('allows five minutes of skew either way, not more', () => {
    for (const [offset, ok] of [
      [-300, true],
      [300, true],
      [-301, false],
      [301, false],
    ] as const) {
      const t = String(Number(ts) + offset);
      const problem = checkSlackSignature({ signingSecret: secret, rawBody, signature: sign(secret, t, rawBody.toString()), timestamp: t, now });
      expect(problem, String(offset)).toBe(ok ? undefined : 'stale_timestamp');
    }
  });
});

describe('payloads and identities', () => {
  it('reads commands, interaction payloads and events', () => {
    expect(parseSlackBody(Buffer.from('command=%2Ftodo&text=add+x'), 'application/x-www-form-urlencoded')).toMatchObject({ command: '/todo', text: 'add x' });
    const payload = encodeURIComponent(JSON.stringify({ type: 'block_actions', actions: [] }));
    expect(parseSlackBody(Buffer.from(`payload=${payload}`), 'application/x-www-form-urlencoded; charset=utf-8')).toEqual({ type: 'block_actions', actions: [] });
    expect(parseSlackBody(Buffer.from('{"type":"event_callback"}'), 'application/json')).toEqual({ type: 'event_callback' });
    expect(() => parseSlackBody(Buffer.from('[1]'), 'application/json')).toThrow();
    expect(() => parseSlackBody(Buffer.from('payload=%7Bnope'), 'application/x-www-form-urlencoded')).toThrow();
  });

  it('names a delivery by event_id, else by its whole payload', () => {
    expect(deliveryIdentity({ type: 'event_callback', event_id: 'Ev1' })).toEqual({ identity: 'event:Ev1', kind: 'event' });
    const a = deliveryIdentity({ command: '/todo', text: '', trigger_id: '1' });
    expect(a.kind).toBe('command');
    expect(deliveryIdentity({ trigger_id: '1', text: '', command: '/todo' })).toEqual(a);
    expect(deliveryIdentity({ command: '/todo', text: '', trigger_id: '2' }).identity).not.toBe(a.identity);
    expect(deliveryIdentity({ type: 'block_actions', trigger_id: '1' }).kind).toBe('action');
  });
});

describe('views', () => {
  it('shows the four numbers of a milestone', () => {
    const view = milestoneStatusView({
      id: 'ms_1',
      ref: 'M3',
      name: 'Sprint 3',
      kind: 'sprint',
      cards_done: 2,
      cards_total: 5,
      criteria_done: 7,
      criteria_total: 11,
      ends_on: null,
      created_at: '2026-01-01T00:00:00.000Z',
    });
    expect(view.response_type).toBe('ephemeral');
    expect(view.text).toBe('M3 Sprint 3: 2/5 cards done, 7/11 criteria done');
    const json = JSON.stringify(view.blocks);
    expect(json).toContain('2 / 5');
    expect(json).toContain('7 / 11');
  });

  it('gives every open todo a Done button carrying its id', () => {
    const view = todoListView([
      { id: 'todo_1', title: 'A <b>', priority: 'high', due_on: '2026-05-02', done: false },
      { id: 'todo_2', title: 'B', priority: 'low', due_on: null, done: false },
    ]);
    const buttons = (view.blocks ?? []).flatMap((b) => (b.type === 'section' && b.accessory?.type === 'button' ? [b.accessory] : []));
    expect(buttons.map((b) => [b.action_id, b.value])).toEqual([
      ['todo_done', 'todo_1'],
      ['todo_done', 'todo_2'],
    ]);
    expect(JSON.stringify(view.blocks)).toContain('A &lt;b&gt;');
    expect(todoListView([]).text).toBe('Nothing open is due this week.');
  });

  it('keeps a long snippet inside one section', () => {
    const view = snippetView({
      id: 'snp_1',
      org_id: 'org_1',
      name: 'Big',
      slug: 'big',
      type: 'txt',
      category: null,
      tags: [],
      visibility: 'team',
      version: 2,
      body: 'x'.repeat(10_000),
      public_url: 'https://t.example/p/abc',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    });
    for (const block of view.blocks ?? []) {
      if (block.type === 'section' && block.text) expect(block.text.text.length).toBeLessThanOrEqual(3000);
    }
    expect(JSON.stringify(view.blocks)).toContain('https://t.example/p/abc');
    // One long line: cut through, and counted in characters.
    expect(JSON.stringify(view.blocks)).toMatch(/…and \d+ more characters, in full at the public link\./);
  });

  it('cuts text without leaving half an escape, and fits a body by its escaped length', () => {
    expect(clip('abc', 3)).toBe('abc');
    expect(clip('abcdef', 4)).toBe('abc…');
    expect(clip('ab &amp; c', 6)).toBe('ab …');
    const fitted = fitBody('<<<<\n<<<<\nxx', 20);
    expect(fitted).toEqual({ shown: '<<<<', moreLines: 2, moreChars: 7 });
    expect(fitBody('short', 20)).toEqual({ shown: 'short', moreLines: 0, moreChars: 0 });
  });

  it('says how many todos a list left out, with + when its page was cut too', () => {
    const todos = Array.from({ length: 45 }, (_, i) => ({ id: `todo_${i}`, title: `T${i}`, priority: 'medium' as const, due_on: null, done: false }));
    const view = todoListView(todos);
    expect(view.blocks!.length).toBeLessThanOrEqual(50);
    expect(JSON.stringify(view.blocks)).toContain('…and 5 more.');
    expect(JSON.stringify(todoListView(todos, { truncated: true }).blocks)).toContain('…and 5+ more.');
  });
});
