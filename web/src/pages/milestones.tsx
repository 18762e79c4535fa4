import { useState, type FormEvent } from 'react';
import { Link } from '@tanstack/react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ok } from '../api/client';
import { keys, useMe, useMilestones, useToday } from '../api/queries';
import { mayWrite } from '../lib/may-write';
import { MilestoneActions } from './milestones/milestone-actions';
import { endsText } from '../lib/days-left';
import { DateField } from '../ui/date-field';
import { ErrorPanel, Loading } from '../ui/error-panel';
import { FieldErrors } from '../ui/field-errors';
import { Progress } from '../ui/progress';
import { SelectField } from '../ui/select-field';

export function MilestonesPage() {
  const milestones = useMilestones();
  const today = useToday();
  const writer = mayWrite(useMe().data);
  return (
    <section className="page narrow">
      <div className="page-head">
        <h1>Milestones</h1>
      </div>
      {milestones.isError && <ErrorPanel error={milestones.error} retry={() => void milestones.refetch()} />}
      {/* End dates are counted from getMe's today: the list waits for it. */}
      {(milestones.isPending || today === undefined) && !milestones.isError && <Loading />}
      {milestones.data?.length === 0 && <p className="muted">No milestones yet. A milestone gathers cards for a sprint or up to a deadline and counts them done{writer ? '; create one below' : ''}.</p>}
      <div className="milestone-grid">
        {today !== undefined &&
          milestones.data?.map((m) => (
            <article key={m.id} className="panel milestone-tile" aria-labelledby={`ms-${m.id}`}>
              <div className="row spread">
                <h2 id={`ms-${m.id}`} className="ellipsis">
                  <Link to="/milestones/$ref" params={{ ref: m.ref }} className="strong-link">
                    <span className="mono">{m.ref}</span> {m.name}
                  </Link>
                </h2>
                <span className="chip">{m.kind}</span>
              </div>
              <p className="muted small">{endsText(m.ends_on, today)}</p>
              <Progress label="Cards done" done={m.cards_done} total={m.cards_total} />
              <Progress label="Criteria done" done={m.criteria_done} total={m.criteria_total} />
              {writer && <MilestoneActions milestone={m} />}
            </article>
          ))}
      </div>
      {writer && <NewMilestone />}
    </section>
  );
}

function NewMilestone() {
  const qc = useQueryClient();
  const [ref, setRef] = useState('');
  const [name, setName] = useState('');
  const [kind, setKind] = useState<'sprint' | 'deadline'>('sprint');
  const [ends, setEnds] = useState<string | null>(null);
  const create = useMutation({
    meta: { inline: true },
    mutationFn: () => ok(api.POST('/milestones', { body: { ref: ref.trim(), name: name.trim(), kind, ...(ends ? { ends_on: ends } : {}) } })),
    onSuccess: () => {
      setRef('');
      setName('');
      void qc.invalidateQueries({ queryKey: keys.milestones });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form className="panel" onSubmit={submit} aria-labelledby="new-ms" style={{ marginTop: 24 }}>
      <h2 id="new-ms" style={{ marginTop: 0 }}>
        New milestone
      </h2>
      <div className="row" style={{ alignItems: 'flex-start' }}>
        <div className="field">
          <label htmlFor="ms-ref">Ref</label>
          <input id="ms-ref" value={ref} onChange={(e) => setRef(e.target.value)} placeholder="M4" size={8} required />
        </div>
        <div className="field grow">
          <label htmlFor="ms-name">Name</label>
          <input id="ms-name" value={name} onChange={(e) => setName(e.target.value)} required />
        </div>
        <SelectField label="Kind" value={kind} options={[{ id: 'sprint', label: 'Sprint' }, { id: 'deadline', label: 'Deadline' }]} onChange={(k) => setKind(k as 'sprint' | 'deadline')} />
        <DateField label="Ends on" value={ends} onChange={setEnds} />
      </div>
      <div className="row spread">
        <FieldErrors error={create.error} />
        <button type="submit" className="button primary" disabled={create.isPending}>
          Create milestone
        </button>
      </div>
    </form>
  );
}
