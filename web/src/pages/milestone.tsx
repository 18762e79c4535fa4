import { useMemo } from 'react';
import { getRouteApi, Link } from '@tanstack/react-router';
import { useQuery } from '@tanstack/react-query';
import { allPages, api, ok } from '../api/client';
import { keys, useToday } from '../api/queries';
import { STATUSES, STATUS_LABEL, type Card, type WorkflowStatus } from '../api/types';
import { endsText } from '../lib/days-left';
import { ErrorPanel, Loading } from '../ui/error-panel';
import { usePageTitle } from '../ui/page-title';
import { Progress } from '../ui/progress';

const route = getRouteApi('/milestones/$ref');

export function MilestonePage() {
  const { ref } = route.useParams();
  const today = useToday();
  // The same operation as GET /v1/milestones/{ref}/status, /milestone in Slack and the CLI.
  const status = useQuery({ queryKey: keys.milestoneStatus(ref), queryFn: () => ok(api.GET('/milestones/{ref}/status', { params: { path: { ref } } })) });
  const cards = useQuery({
    queryKey: keys.milestoneCards(ref),
    queryFn: () => allPages((cursor) => ok(api.GET('/cards', { params: { query: { milestone: ref, limit: 100, cursor } } }))),
  });
  usePageTitle(status.data ? `${status.data.ref} ${status.data.name}` : ref);
  const byStatus = useMemo(() => {
    const out: Record<WorkflowStatus, Card[]> = { backlog: [], in_progress: [], in_review: [], done: [] };
    for (const c of cards.data ?? []) out[c.workflow_status].push(c);
    return out;
  }, [cards.data]);
  if (status.isError && !status.data) return <ErrorPanel error={status.error} retry={() => void status.refetch()} />;
  // Its end is counted from getMe's today: the page waits for it.
  if (!status.data || today === undefined) return <Loading />;
  const m = status.data;
  return (
    <article className="page narrow">
      <div className="crumbs">
        <Link to="/milestones">Milestones</Link> /
      </div>
      <div className="page-head">
        <h1>
          <span className="mono">{m.ref}</span> {m.name}
        </h1>
        <span className="chip">{m.kind}</span>
      </div>
      <p className="muted">{endsText(m.ends_on, today)}</p>
      <div className="panel stack" data-testid="milestone-status">
        <Progress label="Cards done" done={m.cards_done} total={m.cards_total} testId="cards-progress" />
        <Progress label="Criteria done" done={m.criteria_done} total={m.criteria_total} testId="criteria-progress" />
      </div>
      {cards.isError && !cards.data && <ErrorPanel error={cards.error} retry={() => void cards.refetch()} />}
      {cards.data &&
        STATUSES.map((s) => (
          <section key={s} aria-labelledby={`ms-col-${s}`}>
            <h2 id={`ms-col-${s}`}>
              {STATUS_LABEL[s]} <span className="muted small">{byStatus[s].length}</span>
            </h2>
            {byStatus[s].length === 0 ? (
              <p className="muted small">None.</p>
            ) : (
              <ul className="list list-box">
                {byStatus[s].map((c) => (
                  <li key={c.id}>
                    <span className="mono muted small">{c.ref}</span>
                    <Link to="/cards/$ref" params={{ ref: c.ref }} className="grow strong-link">
                      {c.title}
                    </Link>
                    {c.criteria_total > 0 && (
                      <span className="chip">
                        ✓ {c.criteria_done}/{c.criteria_total}
                      </span>
                    )}
                  </li>
                ))}
              </ul>
            )}
          </section>
        ))}
    </article>
  );
}
