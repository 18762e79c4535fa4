import { useRef, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { allPages, api, ok } from '../../api/client';
import { keys, useMe, useMembers } from '../../api/queries';
import { STATUS_LABEL, type Card, type CardEvent, type Comment, type Member, type WorkflowStatus } from '../../api/types';
import { formatDateTime } from '../../lib/dates';
import { ErrorPanel, Loading } from '../../ui/error-panel';
import { MarkdownText } from './markdown';
import { MentionPicker } from './mention-picker';

const FACE_LABEL: Record<CardEvent['actor']['face'], string> = { web: 'web', slack: 'Slack', mcp: 'MCP', cli: 'CLI', api: 'API', job: 'job', github: 'GitHub' };
const status = (s: unknown) => STATUS_LABEL[s as WorkflowStatus] ?? String(s);
const quoted = (v: unknown) => `“${String(v ?? '')}”`;

/** What an event did, in words, after its actor's name ("moved this from Backlog to Done"). */
export function eventSentence(e: CardEvent, members: readonly Member[] | undefined): string {
  const name = (id: unknown) => members?.find((m) => m.id === id)?.name ?? 'someone';
  const changes = e.changes as Record<string, [unknown, unknown]>;
  const data = (e.data ?? {}) as Record<string, unknown>;
  switch (e.type) {
    case 'card.created':
      return 'created this card';
    case 'card.moved':
      return `moved this from ${status(changes.workflow_status?.[0])} to ${status(changes.workflow_status?.[1])}`;
    case 'card.move_refused': {
      const refusal = (data.refusal ?? {}) as { code?: string; workflow_status?: string };
      const why = refusal.code === 'gated_move_requires_human' ? 'refused, as the board lets only people move cards to Done' : `refused (${refusal.code ?? 'not allowed'})`;
      return `tried to move this to ${status(refusal.workflow_status ?? 'done')}: ${why}`;
    }
    case 'card.updated': {
      const parts = Object.entries(changes).map(([field, [was, is]]) => {
        if (field === 'title') return `renamed this from ${quoted(was)} to ${quoted(is)}`;
        if (field === 'description') return is === null ? 'removed the description' : was === null ? 'added a description' : 'edited the description';
        if (field === 'due_on') return is === null ? 'cleared the due date' : `set the due date to ${String(is)}`;
        if (field === 'milestone') return is === null ? 'took this out of its milestone' : `put this in milestone ${String(is)}`;
        if (field === 'assignee_ids') {
          const before = (was as string[] | null) ?? [];
          const after = (is as string[] | null) ?? [];
          const added = after.filter((x) => !before.includes(x)).map(name);
          const removed = before.filter((x) => !after.includes(x)).map(name);
          return [added.length ? `assigned ${added.join(', ')}` : '', removed.length ? `unassigned ${removed.join(', ')}` : ''].filter(Boolean).join(' and ') || 'changed the assignees';
        }
        return `changed ${field.replace(/_/g, ' ')}`;
      });
      return parts.join(', ') || 'changed this card';
    }
    case 'criterion.created':
      return `added the criterion ${quoted(data.title)}`;
    case 'criterion.updated':
      if (changes.done) return `${changes.done[1] ? 'ticked' : 'unticked'} ${quoted(data.title)}`;
      if (changes.title) return `renamed the criterion ${quoted(changes.title[0])} to ${quoted(changes.title[1])}`;
      return `moved the criterion ${quoted(data.title)}`;
    case 'criterion.deleted':
      return 'removed a criterion';
    case 'comment.deleted':
      return 'deleted a comment';
    default:
      return e.type.replace('.', ' ').replace(/_/g, ' ');
  }
}

type Entry = { kind: 'comment'; at: string; comment: Comment } | { kind: 'event'; at: string; event: CardEvent };

/** Comments and the card's history in one list, oldest first; a comment is shown once (its own created and updated events are the comment). */
export function mergeTimeline(comments: readonly Comment[], events: readonly CardEvent[]): Entry[] {
  const entries: Entry[] = [
    ...comments.map((comment): Entry => ({ kind: 'comment', at: comment.created_at, comment })),
    ...events.filter((e) => e.type !== 'comment.created' && e.type !== 'comment.updated').map((event): Entry => ({ kind: 'event', at: event.created_at, event })),
  ];
  return entries.sort((a, b) => a.at.localeCompare(b.at));
}

function Actor({ name, agent, face }: { name: string; agent: boolean; face?: CardEvent['actor']['face'] }) {
  return (
    <>
      <strong className="actor">{name}</strong>
      {(agent || face) && (
        <span className={`chip actor-badge${agent ? ' agent' : ''}`}>
          {' ('}
          {[agent ? 'agent' : '', face ? FACE_LABEL[face] : ''].filter(Boolean).join(', ')}
          {')'}
        </span>
      )}
    </>
  );
}

/**
 * The card's discussion merged with its history (getCardActivity), in time order as Linear and
 * GitHub show them: comments (yours to edit and delete) between "who did what, how, when".
 */
export function Timeline({ card, mayWrite }: { card: Card; mayWrite: boolean }) {
  const qc = useQueryClient();
  const me = useMe();
  const members = useMembers();
  const comments = useQuery({
    queryKey: keys.cardComments(card.ref),
    queryFn: () => allPages((cursor) => ok(api.GET('/cards/{id}/comments', { params: { path: { id: card.id }, query: { limit: 100, cursor } } }))),
  });
  const activity = useQuery({
    queryKey: keys.cardActivity(card.ref),
    queryFn: () => ok(api.GET('/cards/{id}/activity', { params: { path: { id: card.id }, query: { limit: 100 } } })).then((p) => p.data),
  });
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: keys.cardComments(card.ref) });
    void qc.invalidateQueries({ queryKey: keys.cardActivity(card.ref) });
  };
  const add = useMutation({
    mutationFn: (body: string) => ok(api.POST('/cards/{id}/comments', { params: { path: { id: card.id } }, body: { body } })),
    onSettled: refresh,
  });
  const edit = useMutation({
    mutationFn: ({ id, body }: { id: string; body: string }) => ok(api.PATCH('/cards/{id}/comments/{comment_id}', { params: { path: { id: card.id, comment_id: id } }, body: { body } })),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (id: string) => ok(api.DELETE('/cards/{id}/comments/{comment_id}', { params: { path: { id: card.id, comment_id: id } } })),
    onSettled: refresh,
  });
  const [editing, setEditing] = useState<string | null>(null);

  if ((comments.isError && !comments.data) || (activity.isError && !activity.data)) {
    return <ErrorPanel error={comments.error ?? activity.error} retry={refresh} />;
  }
  if (!comments.data || !activity.data) return <Loading />;
  const entries = mergeTimeline(comments.data, activity.data);
  const myId = me.data?.member.id;

  return (
    <section className="timeline" aria-labelledby="timeline-heading">
      <h2 id="timeline-heading" className="section-title">
        Activity and discussion
      </h2>
      <ol className="timeline-list" data-testid="timeline">
        {entries.map((entry) =>
          entry.kind === 'event' ? (
            <li key={entry.event.id} className="timeline-event" data-type={entry.event.type}>
              <Actor name={entry.event.actor.name} agent={entry.event.actor.agent} face={entry.event.actor.face} /> {eventSentence(entry.event, members.data)}
              <time className="muted small" dateTime={entry.event.created_at}>
                {' · '}
                {formatDateTime(entry.event.created_at)}
              </time>
            </li>
          ) : (
            <li key={entry.comment.id} className="timeline-comment panel" data-testid="comment">
              <div className="row spread comment-head">
                <span>
                  <Actor name={entry.comment.author.name} agent={entry.comment.author.agent} />{' '}
                  <time className="muted small" dateTime={entry.comment.created_at}>
                    {formatDateTime(entry.comment.created_at)}
                    {entry.comment.updated_at !== entry.comment.created_at && ' · edited'}
                  </time>
                </span>
                {mayWrite && entry.comment.author.member_id === myId && editing !== entry.comment.id && (
                  <span className="row comment-actions">
                    <button type="button" className="button small" onClick={() => setEditing(entry.comment.id)}>
                      Edit
                    </button>
                    <button type="button" className="button small danger" aria-label="Delete comment" onClick={() => remove.mutate(entry.comment.id)}>
                      Delete
                    </button>
                  </span>
                )}
              </div>
              {editing === entry.comment.id ? (
                <CommentForm
                  members={members.data}
                  initial={entry.comment.body}
                  label="Edit comment"
                  submitLabel="Save"
                  onCancel={() => setEditing(null)}
                  onSubmit={async (body) => {
                    await edit.mutateAsync({ id: entry.comment.id, body });
                    setEditing(null);
                  }}
                />
              ) : (
                <MarkdownText text={entry.comment.body} members={members.data} />
              )}
            </li>
          ),
        )}
      </ol>
      {mayWrite && <CommentForm members={members.data} label="Add a comment" submitLabel="Comment" onSubmit={(body) => add.mutateAsync(body)} />}
    </section>
  );
}

/** A comment's Markdown, with a picker that inserts `@mem_…` (the member's name shows once it is posted). */
function CommentForm({
  members,
  initial = '',
  label,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  members: readonly Member[] | undefined;
  initial?: string;
  label: string;
  submitLabel: string;
  onSubmit: (body: string) => Promise<unknown>;
  onCancel?: () => void;
}) {
  const [body, setBody] = useState(initial);
  const [busy, setBusy] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  const id = `comment-${initial ? 'edit' : 'new'}`;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!body.trim()) return;
    setBusy(true);
    try {
      await onSubmit(body);
      setBody('');
    } catch {
      // the toast says why; the text stays
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="comment-form" onSubmit={(e) => void submit(e)}>
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      <textarea
        id={id}
        ref={area}
        value={body}
        rows={3}
        placeholder="Markdown; mention someone with the picker"
        onChange={(e) => setBody(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape' && onCancel) {
            e.preventDefault();
            onCancel();
          } else if (e.key === 'Enter' && (e.metaKey || e.ctrlKey)) void submit(e);
        }}
      />
      <div className="row spread">
        <MentionPicker members={members} field={area} value={body} onChange={setBody} />
        <span className="row">
          {onCancel && (
            <button type="button" className="button small" onClick={onCancel}>
              Cancel
            </button>
          )}
          <button type="submit" className="button primary" disabled={busy || !body.trim()}>
            {submitLabel}
          </button>
        </span>
      </div>
    </form>
  );
}
