import { afterEach, describe, expect, it } from 'vitest';
// query-core (what react-query re-exports), not react-query: its React types would bring the DOM's into the server's typecheck.
import { MutationObserver, QueryClient } from '@tanstack/query-core';

/*
 * The web modules are built for the browser (bundler resolution, DOM types): they are loaded
 * by path, so the server's typecheck does not follow them, and typed here as far as used.
 */
const web = <T>(path: string): Promise<T> => import(/* @vite-ignore */ new URL(`../web/src/${path}`, import.meta.url).href) as Promise<T>;
type Card = { id: string; ref: string; board_id: string; title: string; workflow_status: string; assignee_ids: string[]; milestone: string | null; created_at: string; updated_at: string } & Record<string, unknown>;
type Todo = { id: string; done: boolean; org_id?: string } & Record<string, unknown>;
type TackEvent = { type: string; actor: { member_id: string | null } & Record<string, unknown>; subject: { type: string; id: string; ref: string | null }; changes: Record<string, unknown[]>; data: unknown } & Record<string, unknown>;
type Me = { member: { id: string } };
const { keys } = await web<{ keys: { me: readonly unknown[]; board(slug: string): readonly unknown[]; cards(slug: string, f: object): readonly unknown[]; todos(scope: string): readonly unknown[] } }>('api/queries.ts');
const { applyEvent } = await web<{ applyEvent(qc: QueryClient, e: TackEvent): void }>('live/apply-event.ts');
const { placeCard } = await web<{ placeCard(list: Card[], c: Card): Card[] }>('live/patch-cards.ts');
const { startLiveUpdates } = await web<{ startLiveUpdates(qc: QueryClient): () => void }>('live/live-updates.ts');

/**
 * The web app's query cache as the event stream patches it (web/src/live), on a real
 * QueryClient: columns keep listCards' order, a page's filters hold, a late event never undoes
 * a newer answer, another member's todo never joins my list, and an event arriving while one
 * of the tab's own writes is in flight waits for it.
 */

const ME = 'mem_me';
const me = { member: { id: ME } } as Me;

function card(id: string, over: Partial<Card> = {}): Card {
  return {
    id,
    ref: `DES-${id}`,
    board_id: 'brd_design',
    title: id,
    workflow_status: 'backlog',
    gated: false,
    criteria_done: 0,
    criteria_total: 0,
    due_on: null,
    assignee_ids: [],
    milestone: null,
    created_at: `2026-11-0${id.length}T00:00:00.000Z`,
    updated_at: '2026-11-20T00:00:00.000Z',
    ...over,
  } as Card;
}

function event(type: string, data: unknown, over: Partial<TackEvent> = {}): TackEvent {
  const d = data as { id?: string; ref?: string } | null;
  return {
    id: 'evt_1',
    type,
    created_at: '2026-11-26T00:00:00.000Z',
    actor: { member_id: 'mem_other', name: 'Other', agent: false, face: 'api' },
    subject: { type: type.slice(0, type.indexOf('.')), id: d?.id ?? 'x', ref: d?.ref ?? null },
    changes: {},
    data,
    ...over,
  };
}

function client(): QueryClient {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  qc.setQueryData(keys.me, me);
  qc.setQueryData(keys.board('design'), { id: 'brd_design', slug: 'design' });
  return qc;
}

const ids = (list: Card[] | undefined) => list?.map((c) => `${c.id}:${c.workflow_status}`);

describe('the board columns patched from events', () => {
  it('places a card in its column newest first, and replaces one in place', () => {
    const list = [card('aaa', { workflow_status: 'backlog' }), card('a', { workflow_status: 'backlog' }), card('aa', { workflow_status: 'done' })];
    expect(ids(placeCard(list, card('aa', { workflow_status: 'backlog' })))).toEqual(['aaa:backlog', 'aa:backlog', 'a:backlog']);
    expect(ids(placeCard(list, card('aaaa', { workflow_status: 'done' })))).toEqual(['aaa:backlog', 'a:backlog', 'aaaa:done', 'aa:done']);
    expect(ids(placeCard(list, card('b', { workflow_status: 'in_review' })))).toEqual(['aaa:backlog', 'a:backlog', 'aa:done', 'b:in_review']);
    expect(placeCard(list, card('a', { title: 'renamed' })).map((c) => c.title)).toEqual(['aaa', 'renamed', 'aa']);
  });

  it("keeps each list's filters: assignee=me, a milestone, the board", () => {
    const qc = client();
    const all = keys.cards('design', {});
    const mine = keys.cards('design', { assignee: 'me' });
    const m3 = keys.cards('design', { milestone: 'M3' });
    qc.setQueryData(all, [card('a')]);
    qc.setQueryData(mine, [card('a', { assignee_ids: [ME] })]);
    qc.setQueryData(m3, []);
    applyEvent(qc, event('card.updated', card('a', { assignee_ids: ['mem_other'], milestone: 'M3', updated_at: '2026-11-21T00:00:00.000Z' })));
    expect(ids(qc.getQueryData(all))).toEqual(['a:backlog']);
    expect(qc.getQueryData(mine)).toEqual([]);
    expect(ids(qc.getQueryData(m3))).toEqual(['a:backlog']);
    applyEvent(qc, event('card.created', card('bb', { board_id: 'brd_eng' })));
    expect(ids(qc.getQueryData(all))).toEqual(['a:backlog']);
    applyEvent(qc, event('card.deleted', null, { subject: { type: 'card', id: 'a', ref: 'DES-a' } }));
    expect(qc.getQueryData(all)).toEqual([]);
    expect(qc.getQueryData(m3)).toEqual([]);
  });

  it('never puts back an older state of a card than the one shown', () => {
    const qc = client();
    const all = keys.cards('design', {});
    qc.setQueryData(all, [card('a', { workflow_status: 'done', updated_at: '2026-11-22T00:00:00.000Z' })]);
    applyEvent(qc, event('card.moved', card('a', { workflow_status: 'in_review', updated_at: '2026-11-21T00:00:00.000Z' })));
    expect(ids(qc.getQueryData(all))).toEqual(['a:done']);
  });
});

describe('the todo lists patched from events', () => {
  const todo = (id: string, over: Partial<Todo> = {}) => ({ id, title: id, priority: 'medium', due_on: null, done: false, done_at: null, created_at: '2026-11-20T00:00:00.000Z', due_state: 'none', ...over }) as Todo;

  it('adds my new todos to the lists of their scope, never another member’s team todo', () => {
    const qc = client();
    qc.setQueryData(keys.todos('all'), []);
    qc.setQueryData(keys.todos('personal'), []);
    qc.setQueryData(keys.todos('org'), []);
    const mine = { member_id: ME, name: 'Me', agent: false, face: 'cli' };
    applyEvent(qc, event('todo.created', todo('t1'), { actor: mine }));
    applyEvent(qc, event('todo.created', todo('t2', { org_id: 'org_1' }), { actor: mine }));
    applyEvent(qc, event('todo.created', todo('t3', { org_id: 'org_1' })));
    expect(qc.getQueryData<Todo[]>(keys.todos('all'))!.map((t) => t.id)).toEqual(['t2', 't1']);
    expect(qc.getQueryData<Todo[]>(keys.todos('personal'))!.map((t) => t.id)).toEqual(['t1']);
    expect(qc.getQueryData<Todo[]>(keys.todos('org'))!.map((t) => t.id)).toEqual(['t2']);
    // Completed by someone ticking the criterion it mirrors: replaced where shown; deleted: gone.
    applyEvent(qc, event('todo.completed', todo('t2', { org_id: 'org_1', done: true })));
    expect(qc.getQueryData<Todo[]>(keys.todos('org'))![0]!.done).toBe(true);
    applyEvent(qc, event('todo.deleted', null, { subject: { type: 'todo', id: 't1', ref: null } }));
    expect(qc.getQueryData<Todo[]>(keys.todos('all'))!.map((t) => t.id)).toEqual(['t2']);
  });
});

/** The browser's EventSource, as far as live-updates uses it: tests hand it events. */
class TestEventSource {
  static CLOSED = 2;
  static last: TestEventSource | undefined;
  readyState = 1;
  onopen: (() => void) | null = null;
  onerror: (() => void) | null = null;
  readonly listeners = new Map<string, (e: { data: string }) => void>();
  constructor(readonly url: string) {
    TestEventSource.last = this;
  }
  addEventListener(type: string, fn: (e: { data: string }) => void) {
    this.listeners.set(type, fn);
  }
  close() {
    this.readyState = TestEventSource.CLOSED;
  }
  send(e: TackEvent) {
    this.listeners.get(e.type)!({ data: JSON.stringify(e) });
  }
}

describe('events while a write of this tab is in flight', () => {
  const globals = globalThis as unknown as Record<string, unknown>;
  afterEach(() => {
    delete globals.EventSource;
    delete globals.document;
  });

  it('wait for it: the optimistic state stays, then the write’s own event leaves the same state', async () => {
    globals.EventSource = TestEventSource;
    globals.document = { documentElement: { dataset: {} } };
    const qc = client();
    const all = keys.cards('design', {});
    qc.setQueryData(all, [card('a', { workflow_status: 'backlog' })]);
    const stop = startLiveUpdates(qc);
    const source = TestEventSource.last!;
    expect(source.url).toBe('/v1/events/stream');

    let answer!: (c: Card) => void;
    const moved = card('a', { workflow_status: 'done', updated_at: '2026-11-22T00:00:00.000Z' });
    const move = new MutationObserver(qc, {
      mutationFn: () => new Promise<Card>((resolve) => (answer = resolve)),
      onMutate: () => qc.setQueryData<Card[]>(all, (l) => l!.map((c) => ({ ...c, workflow_status: 'done' as const }))),
      onSuccess: (c: Card) => qc.setQueryData<Card[]>(all, (l) => l!.map((x) => (x.id === c.id ? c : x))),
    });
    const done = move.mutate();
    await new Promise((r) => setTimeout(r, 0));
    expect(ids(qc.getQueryData(all))).toEqual(['a:done']);
    // Another client's earlier move, then this write's own event, arrive before its answer.
    source.send(event('card.moved', card('a', { workflow_status: 'in_review', updated_at: '2026-11-21T00:00:00.000Z' })));
    expect(ids(qc.getQueryData(all))).toEqual(['a:done']);
    source.send(event('card.moved', moved));
    expect(ids(qc.getQueryData(all))).toEqual(['a:done']);
    answer(moved);
    await done;
    expect(ids(qc.getQueryData(all))).toEqual(['a:done']);
    expect(qc.getQueryData<Card[]>(all)![0]).toEqual(moved);
    stop();
    expect(source.readyState).toBe(TestEventSource.CLOSED);
  });
});
