import type { Api } from './server.js';

/** Dates relative to a day, as `YYYY-MM-DD`. */
export function dayOffset(days: number, from = new Date()): string {
  const d = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate()));
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

async function must<T = any>(api: Api, method: string, path: string, body?: unknown): Promise<T> {
  const res = await api<T>(method, path, body === undefined ? {} : { body });
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
  return res.body;
}

export interface Seeded {
  ownerId: string;
  orgId: string;
  members: Record<'ada' | 'grace' | 'linus', string>;
  cards: Record<string, { id: string; ref: string }>;
  todoLinked: { id: string; cardRef: string; criterionId: string };
  snippet: { id: string; slug: string };
}

/**
 * A small team's week, in UTC: two boards (ENG gated), a sprint and a deadline, cards in
 * every column (one overdue), criteria, todos in every group, snippets with versions.
 */
export async function seedTeam(api: Api): Promise<Seeded> {
  const me = await must(api, 'GET', '/v1/me');
  await must(api, 'PATCH', `/v1/members/${me.member.id}`, { name: 'Sam Rivera', tz: 'UTC' });
  const ada = await must(api, 'POST', '/v1/members', { name: 'Ada Lovelace', email: 'ada@example.com', role: 'admin' });
  const grace = await must(api, 'POST', '/v1/members', { name: 'Grace Hopper', email: 'grace@example.com', role: 'member', slack_user_id: 'U024BE7LH' });
  const linus = await must(api, 'POST', '/v1/members', { name: 'Linus Pauling', role: 'viewer' });
  await must(api, 'POST', '/v1/boards', { name: 'Engineering', slug: 'eng', ref_prefix: 'ENG', gated: true });
  await must(api, 'POST', '/v1/boards', { name: 'Design', slug: 'design', ref_prefix: 'DES', gated: false });
  await must(api, 'POST', '/v1/milestones', { ref: 'M3', name: 'Sprint 3: onboarding', kind: 'sprint', ends_on: dayOffset(5) });
  await must(api, 'POST', '/v1/milestones', { ref: 'GA', name: 'General availability', kind: 'deadline', ends_on: dayOffset(40) });

  const cards: Seeded['cards'] = {};
  const card = async (
    key: string,
    body: { board: string; title: string; due_on?: string; assignee_ids?: string[]; milestone?: string; criteria?: string[] },
    status?: string,
    ticked = 0,
  ) => {
    const c = await must(api, 'POST', '/v1/cards', body);
    if (status) await must(api, 'PATCH', `/v1/cards/${c.id}`, { workflow_status: status });
    if (ticked > 0) {
      const crit = await must(api, 'GET', `/v1/cards/${c.id}/criteria?limit=100`);
      for (const row of crit.data.slice(0, ticked)) await must(api, 'PATCH', `/v1/cards/${c.id}/criteria/${row.id}`, { done: true });
    }
    cards[key] = { id: c.id, ref: c.ref };
  };
  await card('signup', { board: 'eng', title: 'Sign-up form validates e-mail on blur', assignee_ids: [ada.id], milestone: 'M3', due_on: dayOffset(-2), criteria: ['Inline error under the field', 'Screen reader announces it', 'Works without JavaScript'] }, 'in_progress', 1);
  await card('invite', { board: 'eng', title: 'Invite teammates from the empty board', assignee_ids: [me.member.id, grace.id], milestone: 'M3', due_on: dayOffset(3), criteria: ['Copy link', 'E-mail invite'] }, 'in_progress');
  await card('tour', { board: 'eng', title: 'Product tour: three steps, skippable', milestone: 'M3', criteria: ['Step copy reviewed', 'Skip remembers choice'] }, 'in_review', 2);
  await card('rate', { board: 'eng', title: 'Rate-limit headers on every response', assignee_ids: [grace.id], milestone: 'GA' }, 'done');
  await card('audit', { board: 'eng', title: 'Audit log export as CSV', assignee_ids: [me.member.id], milestone: 'GA', due_on: dayOffset(12), criteria: ['Columns agreed'] });
  await card('sso', { board: 'eng', title: 'SAML single sign-on for larger teams', milestone: 'GA' });
  await card('welcome', { board: 'eng', title: 'Welcome e-mail with the first sign-in link', assignee_ids: [me.member.id], milestone: 'M3', criteria: ['Plain-text version'] }, 'done', 1);
  await card('icons', { board: 'design', title: 'Icon set for card states', assignee_ids: [ada.id] }, 'in_progress');
  await card('dark', { board: 'design', title: 'Dark theme contrast pass', due_on: dayOffset(1) });

  const orgTodo = (body: Record<string, unknown>) => must(api, 'POST', '/v1/todos', { org_id: me.org.id, ...body });
  await must(api, 'POST', '/v1/todos', { title: 'Renew the TLS certificate', priority: 'urgent', due_on: dayOffset(-1) });
  const linked = await orgTodo({ title: 'Write the e-mail invite copy', priority: 'high', due_on: dayOffset(0), card_id: cards.invite!.id });
  await orgTodo({ title: 'Review the product tour copy', priority: 'medium', due_on: dayOffset(0) });
  await must(api, 'POST', '/v1/todos', { title: 'Book the retro room', priority: 'low', due_on: dayOffset(2) });
  await orgTodo({ title: 'Draft the GA announcement', priority: 'medium', due_on: dayOffset(20) });
  await must(api, 'POST', '/v1/todos', { title: 'Read the Postgres 17 release notes', priority: 'low' });
  const done = await orgTodo({ title: 'Ship the sign-in page', priority: 'high', due_on: dayOffset(-3) });
  await must(api, 'POST', `/v1/todos/${done.id}/done`);

  const snippet = await must(api, 'POST', '/v1/snippets', {
    type: 'sql',
    name: 'Overdue cards by assignee',
    category: 'reports/weekly',
    tags: ['report', 'cards'],
    body: "select m.name, count(*) as overdue\nfrom cards c\njoin card_assignees a on a.card_id = c.id\njoin members m on m.id = a.member_id\nwhere c.due_on < current_date\ngroup by m.name;",
  });
  await must(api, 'PATCH', `/v1/snippets/${snippet.id}`, {
    body: "-- Overdue, open cards per person\nselect m.name, count(*) as overdue\nfrom cards c\njoin card_assignees a on a.card_id = c.id\njoin members m on m.id = a.member_id\nwhere c.due_on < current_date\n  and c.workflow_status <> 'done'\ngroup by m.name\norder by overdue desc;",
  });
  await must(api, 'POST', '/v1/snippets', {
    type: 'json',
    name: 'Webhook payload example',
    tags: ['api'],
    body: '{\n  "event": "card.moved",\n  "card": { "ref": "ENG-4", "from": "in_review", "to": "done" },\n  "actor": { "human": true },\n  "at": "2026-03-04T10:00:00Z"\n}',
  });
  await must(api, 'POST', '/v1/snippets', {
    type: 'html',
    name: 'Status badge embed',
    category: 'embeds',
    tags: ['embed', 'report'],
    body: '<a class="badge" href="https://tack.example/milestones/M3">\n  <img src="/badge/M3.svg" alt="M3 status">\n</a>',
  });
  await must(api, 'POST', '/v1/snippets', { type: 'txt', name: 'On-call handover checklist', tags: ['ops'], body: '1. Check open incidents\n2. Hand over the pager\n3. Note anything odd in #ops' });

  return {
    ownerId: me.member.id,
    orgId: me.org.id,
    members: { ada: ada.id, grace: grace.id, linus: linus.id },
    cards,
    todoLinked: { id: linked.id, cardRef: cards.invite!.ref, criterionId: linked.criterion_id },
    snippet: { id: snippet.id, slug: snippet.slug },
  };
}
