import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button } from 'react-aria-components';
import { api, ok } from '../../api/client';
import { keys } from '../../api/queries';
import type { Board } from '../../api/types';
import { ConfirmDialog } from '../../ui/dialogs';
import { FormDialog } from '../../ui/form-dialog';
import { notify } from '../../ui/toast-queue';

/** A board's settings (updateBoard, deleteBoard): shown to those whose abilities say manage_boards. */
export function BoardSettings({ board }: { board: Board }) {
  const qc = useQueryClient();
  const [name, setName] = useState(board.name);
  const [gated, setGated] = useState(board.gated);
  const done = () => {
    void qc.invalidateQueries({ queryKey: keys.boards });
    void qc.invalidateQueries({ queryKey: ['board', board.slug] });
    void qc.invalidateQueries({ queryKey: keys.boardMoves(board.slug) });
  };
  const save = useMutation({
    meta: { inline: true },
    mutationFn: () => ok(api.PATCH('/boards/{id}', { params: { path: { id: board.id } }, body: { name: name.trim(), gated } })),
    onSuccess: (b) => {
      done();
      notify(`Saved ${b.name}`);
    },
  });
  const remove = useMutation({
    mutationFn: () => ok(api.DELETE('/boards/{id}', { params: { path: { id: board.id } } })),
    onSuccess: () => {
      done();
      notify(`Deleted ${board.name}`);
    },
  });
  return (
    <FormDialog
      trigger={
        <Button className="button small">
          Settings<span className="visually-hidden"> of {board.name}</span>
        </Button>
      }
      title={`Settings of ${board.name}`}
      onOpen={() => {
        setName(board.name);
        setGated(board.gated);
        save.reset();
      }}
      onSave={() => save.mutateAsync()}
      busy={save.isPending}
      error={save.error}
      aside={
        <ConfirmDialog
          trigger={<Button className="button danger">Delete board</Button>}
          title={`Delete ${board.name}?`}
          confirmLabel="Delete board"
          onConfirm={() => remove.mutate()}
        >
          <p>Its cards ({board.ref_prefix}-…) and their criteria are deleted with it. This cannot be undone.</p>
        </ConfirmDialog>
      }
    >
      {() => (
        <>
          <div className="field">
            <label htmlFor={`name-${board.id}`}>Name</label>
            <input id={`name-${board.id}`} value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} />
          </div>
          <label className="row" style={{ fontWeight: 400 }}>
            <input type="checkbox" checked={gated} onChange={(e) => setGated(e.target.checked)} /> Moves to Done need a human (gated)
          </label>
        </>
      )}
    </FormDialog>
  );
}
