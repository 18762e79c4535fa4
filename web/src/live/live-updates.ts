import type { QueryClient } from '@tanstack/react-query';
import { keys } from '../api/queries';
import type { TackEvent } from '../api/types';
import { applyEvent } from './apply-event';

/**
 * Every event type of contract §10 (an EventSource hears a named event only with a listener
 * of its own); a Record, so a type added to the API description fails the build until it is here.
 */
const TYPES = Object.keys({
  'card.created': 1, 'card.updated': 1, 'card.moved': 1, 'card.deleted': 1, 'card.move_refused': 1,
  'criterion.created': 1, 'criterion.updated': 1, 'criterion.deleted': 1,
  'comment.created': 1, 'comment.updated': 1, 'comment.deleted': 1,
  'todo.created': 1, 'todo.updated': 1, 'todo.completed': 1, 'todo.reopened': 1, 'todo.deleted': 1,
  'milestone.created': 1, 'milestone.updated': 1, 'milestone.deleted': 1,
  'snippet.created': 1, 'snippet.updated': 1, 'snippet.deleted': 1, 'snippet.link_rotated': 1,
  'board.created': 1, 'board.updated': 1, 'board.deleted': 1,
  'member.created': 1, 'member.updated': 1, 'member.removed': 1,
  'token.created': 1, 'token.revoked': 1, 'webhook.disabled': 1,
} satisfies Record<TackEvent['type'], 1>);

const STREAM = '/v1/events/stream';
const MAX_DELAY_MS = 30_000;

/** How the stream is doing, on `<html data-live>` (open, connecting, closed). */
function say(state: 'open' | 'connecting' | 'closed'): void {
  document.documentElement.dataset.live = state;
}

/**
 * The tab's one event stream (`GET /v1/events/stream`, the session cookie authenticating it),
 * patching the query cache from each event. The browser reconnects a dropped stream by
 * itself, with Last-Event-ID, and tack sends what was missed; `event: reset` (an id no longer
 * kept) reads again what is shown. A stream that fails outright (tack answered but not with a
 * stream: restarting, or signed out) is opened afresh after a growing pause, and what is
 * shown is read again, since nothing says what was missed; getMe is read at once, so an
 * ended session goes to the sign-in page.
 *
 * While one of this tab's own writes is in flight, events wait: an optimistic change on
 * screen is never overwritten by an older state, and the write's own event, applied once it
 * has settled, shows the same state its answer did.
 */
export function startLiveUpdates(qc: QueryClient): () => void {
  let source: EventSource | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let delay = 1_000;
  let stopped = false;
  let missed = false;
  const waiting: TackEvent[] = [];

  const apply = (event: TackEvent) => {
    if (qc.isMutating() > 0) waiting.push(event);
    else applyEvent(qc, event);
  };
  const unsubscribe = qc.getMutationCache().subscribe(() => {
    if (waiting.length === 0 || qc.isMutating() > 0) return;
    for (const event of waiting.splice(0)) applyEvent(qc, event);
  });
  const readAgain = () => {
    waiting.length = 0;
    void qc.invalidateQueries();
  };
  const onEvent = (e: MessageEvent<string>) => {
    try {
      apply(JSON.parse(e.data) as TackEvent);
    } catch {
      // A frame this build cannot read: what it changed shows on the next read.
    }
  };

  const open = () => {
    if (stopped) return;
    say('connecting');
    const s = new EventSource(STREAM);
    source = s;
    s.onopen = () => {
      say('open');
      delay = 1_000;
      if (missed) {
        missed = false;
        readAgain();
      }
    };
    s.onerror = () => {
      if (s.readyState !== EventSource.CLOSED) return say('connecting');
      say('closed');
      s.close();
      missed = true;
      void qc.invalidateQueries({ queryKey: keys.me });
      timer = setTimeout(open, delay);
      delay = Math.min(delay * 2, MAX_DELAY_MS);
    };
    s.addEventListener('reset', readAgain);
    for (const type of TYPES) s.addEventListener(type, onEvent as EventListener);
  };
  open();

  return () => {
    stopped = true;
    clearTimeout(timer);
    source?.close();
    unsubscribe();
    say('closed');
  };
}
