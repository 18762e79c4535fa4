import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { api, ok } from '../../api/client';
import { keys } from '../../api/queries';
import type { Milestone } from '../../api/types';
import { DateField } from '../../ui/date-field';
import { ConfirmDialog } from '../../ui/dialogs';
import { FormDialog } from '../../ui/form-dialog';
import { SelectField } from '../../ui/select-field';
import { notify } from '../../ui/toast-queue';

/** Edit (updateMilestone) and delete (deleteMilestone) a milestone, for a caller who may write. */
export function MilestoneActions({ milestone }: { milestone: Milestone }) {
  const qc = useQueryClient();
  const [ref, setRef] = useState(milestone.ref);
  const [name, setName] = useState(milestone.name);
  const [kind, setKind] = useState(milestone.kind);
  const [ends, setEnds] = useState<string | null>(milestone.ends_on);
  const save = useMutation({
    meta: { inline: true },
    mutationFn: () =>
      ok(api.PATCH('/milestones/{ref}', { params: { path: { ref: milestone.id } }, body: { ref: ref.trim(), name: name.trim(), kind, ends_on: ends } })),
    onSuccess: (m) => {
      void qc.invalidateQueries({ queryKey: keys.milestones });
      notify(`Saved ${m.ref}`);
    },
  });
  const remove = useMutation({
    mutationFn: () => ok(api.DELETE('/milestones/{ref}', { params: { path: { ref: milestone.id } } })),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: keys.milestones });
      notify(`Deleted ${milestone.ref}`, 'Its cards stay, without a milestone.');
    },
  });
  return (
    <div className="row item-actions">
      <FormDialog
        trigger={
          <Button className="button small">
            Edit<span className="visually-hidden"> {milestone.ref}</span>
          </Button>
        }
        title={`Edit ${milestone.ref}`}
        onOpen={() => {
          setRef(milestone.ref);
          setName(milestone.name);
          setKind(milestone.kind);
          setEnds(milestone.ends_on);
          save.reset();
        }}
        onSave={() => save.mutateAsync()}
        busy={save.isPending}
        error={save.error}
      >
        {() => (
          <>
            <div className="row" style={{ alignItems: 'flex-start' }}>
              <div className="field">
                <label htmlFor={`ref-${milestone.id}`}>Ref</label>
                <input id={`ref-${milestone.id}`} value={ref} onChange={(e) => setRef(e.target.value)} size={8} required />
              </div>
              <div className="field grow">
                <label htmlFor={`name-${milestone.id}`}>Name</label>
                <input id={`name-${milestone.id}`} value={name} onChange={(e) => setName(e.target.value)} required />
              </div>
            </div>
            <div className="row" style={{ alignItems: 'flex-start' }}>
              <SelectField label="Kind" value={kind} options={[{ id: 'sprint', label: 'Sprint' }, { id: 'deadline', label: 'Deadline' }]} onChange={(k) => setKind(k as Milestone['kind'])} />
              <DateField label="Ends on" value={ends} onChange={setEnds} />
              {ends && (
                <button type="button" className="button small" onClick={() => setEnds(null)}>
                  No end date
                </button>
              )}
            </div>
          </>
        )}
      </FormDialog>
      <ConfirmDialog
        trigger={
          <Button className="button small danger">
            Delete<span className="visually-hidden"> {milestone.ref}</span>
          </Button>
        }
        title={`Delete ${milestone.ref} ${milestone.name}?`}
        confirmLabel="Delete milestone"
        onConfirm={() => remove.mutate()}
      >
        <p>Its {milestone.cards_total} cards stay on their boards, without a milestone.</p>
      </ConfirmDialog>
    </div>
  );
}
