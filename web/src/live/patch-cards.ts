import type { QueryClient, QueryKey } from '@tanstack/react-query';
import { cardQuery, keys } from '../api/queries';
import type { Board, Card, Me, TackEvent } from '../api/types';

/**
 * Cards in the query cache, patched from the stream: a board's columns (`['cards', slug,
 * filters]`), a milestone's cards, the card page and the card a todo names. A list is changed
 * in place (insert, replace, move between columns, remove), never read again whole.
 */

type Filters = { assignee?: 'me' | undefined; milestone?: string | undefined };

/** Newest first, as listCards answers each column. */
const newer = (a: Card, b: Card) => a.created_at > b.created_at || (a.created_at === b.created_at && a.id > b.id);

/** The card where its column has it (newest first); replaced in place when it stays in its column. */
export function placeCard(list: readonly Card[], card: Card): Card[] {
  const at = list.findIndex((c) => c.id === card.id);
  if (at >= 0 && list[at]!.workflow_status === card.workflow_status) return list.map((c, i) => (i === at ? card : c));
  const rest = list.filter((c) => c.id !== card.id);
  let to = rest.findIndex((c) => c.workflow_status === card.workflow_status && newer(card, c));
  if (to < 0) {
    const last = rest.map((c) => c.workflow_status).lastIndexOf(card.workflow_status);
    to = last >= 0 ? last + 1 : rest.length;
  }
  return [...rest.slice(0, to), card, ...rest.slice(to)];
}

/** Whether a list with these filters shows the card; undefined when it cannot be told (who "me" is, unknown yet). */
function shows(card: Card, filters: Filters, me: Me | undefined): boolean | undefined {
  if (filters.milestone !== undefined && card.milestone !== filters.milestone) return false;
  if (filters.assignee === 'me') {
    if (!me) return undefined;
    return card.assignee_ids.includes(me.member.id);
  }
  return true;
}

/** The id of the board a `['cards', slug, …]` list is of. */
function boardIdOf(qc: QueryClient, slug: string, list: readonly Card[] | undefined): string | undefined {
  return (
    qc.getQueryData<Board>(keys.board(slug))?.id ??
    qc.getQueryData<Board[]>(keys.boards)?.find((b) => b.slug === slug)?.id ??
    list?.[0]?.board_id
  );
}

/** An event's card is not older than the one cached (a late event never undoes a newer answer). */
const fresher = (cached: Card | undefined, card: Card) => !cached || cached.updated_at <= card.updated_at;

/** Puts a card (as getCard answers it now) everywhere it is shown, and takes it out of lists that no longer show it. */
export function putCard(qc: QueryClient, card: Card): void {
  const me = qc.getQueryData<Me>(keys.me);
  const patchList = (key: QueryKey, list: Card[] | undefined, show: boolean | undefined) => {
    if (!list) return;
    if (show === undefined) return void qc.invalidateQueries({ queryKey: key, exact: true });
    const cached = list.find((c) => c.id === card.id);
    if (!fresher(cached, card)) return;
    if (show) qc.setQueryData<Card[]>(key, placeCard(list, card));
    else if (cached) qc.setQueryData<Card[]>(key, list.filter((c) => c.id !== card.id));
  };
  for (const [key, list] of qc.getQueriesData<Card[]>({ queryKey: ['cards'] })) {
    const slug = String(key[1]);
    const board = boardIdOf(qc, slug, list);
    const show = board === undefined ? undefined : board === card.board_id && shows(card, (key[2] ?? {}) as Filters, me);
    patchList(key, list, show);
  }
  for (const [key, list] of qc.getQueriesData<Card[]>({ queryKey: ['milestone-cards'] })) patchList(key, list, card.milestone === key[1]);
  for (const key of [keys.card(card.ref), keys.cardById(card.id)]) {
    if (fresher(qc.getQueryData<Card>(key), card) && qc.getQueryData(key) !== undefined) qc.setQueryData<Card>(key, card);
  }
}

/** Takes a deleted card out of every list; its page reads it again (and says it is gone). */
export function dropCard(qc: QueryClient, id: string, ref: string | null): void {
  for (const prefix of ['cards', 'milestone-cards']) {
    qc.setQueriesData<Card[]>({ queryKey: [prefix] }, (list) => (list?.some((c) => c.id === id) ? list.filter((c) => c.id !== id) : list));
  }
  if (ref) void qc.invalidateQueries({ queryKey: keys.card(ref) });
}

/** The card as cached anywhere (its milestone before a deletion, say). */
export function cachedCard(qc: QueryClient, id: string): Card | undefined {
  for (const prefix of ['cards', 'milestone-cards']) {
    for (const [, list] of qc.getQueriesData<Card[]>({ queryKey: [prefix] })) {
      const hit = list?.find((c) => c.id === id);
      if (hit) return hit;
    }
  }
  return qc.getQueryData<Card>(keys.cardById(id));
}

/** Whether the card is on screen anywhere (a list, its page, a todo's link). */
export function cardShown(qc: QueryClient, ref: string): boolean {
  if (qc.getQueryData(keys.card(ref)) !== undefined) return true;
  return ['cards', 'milestone-cards'].some((prefix) => qc.getQueriesData<Card[]>({ queryKey: [prefix] }).some(([, list]) => list?.some((c) => c.ref === ref)));
}

/**
 * A change to a card's criteria changes its counts, which no card event carries: the one card
 * is read again (getCard) and put where it is shown.
 */
export async function refreshCard(qc: QueryClient, ref: string): Promise<Card | undefined> {
  if (!cardShown(qc, ref)) return undefined;
  try {
    const card = await qc.fetchQuery({ ...cardQuery(ref), staleTime: 0 });
    putCard(qc, card);
    return card;
  } catch {
    return undefined; // gone meanwhile: its own event says so
  }
}

/** The card of a card event, as the event carries it. */
export const cardOf = (event: TackEvent): Card | null => event.data as Card | null;
