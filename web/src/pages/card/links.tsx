import { useQuery } from '@tanstack/react-query';
import { api, ok } from '../../api/client';
import type { Card } from '../../api/types';
import { formatDateTime } from '../../lib/dates';
import { ErrorPanel } from '../../ui/error-panel';
import { notify } from '../../ui/toast-queue';

const STATE_LABEL = { open: 'Open', draft: 'Draft', merged: 'Merged', closed: 'Closed' } as const;

/**
 * The card's GitHub side (contract §12): its `branch_name` with a Copy button, and the pull
 * requests that name it, each with its state as GitHub last said it.
 */
export function CardLinks({ card }: { card: Card }) {
  const links = useQuery({
    queryKey: ['cards', card.ref, 'links'],
    queryFn: () => ok(api.GET('/cards/{id}/links', { params: { path: { id: card.id } } })).then((r) => r.data),
  });
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(card.branch_name);
      notify('Branch name copied');
    } catch {
      (document.getElementById('card-branch-name') as HTMLInputElement | null)?.select();
      notify('Press Ctrl+C (⌘C) to copy the selected branch name');
    }
  };
  return (
    <section className="card-links" aria-labelledby="card-links-h">
      <h2 id="card-links-h">
        Pull requests
      </h2>
      <div className="row">
        <label htmlFor="card-branch-name" className="visually-hidden">
          Branch name
        </label>
        <input id="card-branch-name" className="grow mono" readOnly value={card.branch_name} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" className="button" onClick={() => void copy()}>
          Copy branch name
        </button>
      </div>
      {links.isError && <ErrorPanel error={links.error} retry={() => void links.refetch()} />}
      {links.data && links.data.length === 0 && <p className="muted small">No pull request names {card.ref} yet. A branch named with it links one.</p>}
      {links.data && links.data.length > 0 && (
        <ul className="list list-box" data-testid="card-links">
          {links.data.map((l) => (
            <li key={`${l.repository}#${l.number}`} className="row spread">
              <a href={l.url} target="_blank" rel="noreferrer noopener">
                {l.repository}#{l.number} {l.title}
              </a>
              <span className={`chip${l.state === 'merged' ? ' accent' : ''}`} title={`Updated ${formatDateTime(l.updated_at)}`}>
                {STATE_LABEL[l.state]}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
