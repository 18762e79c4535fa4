import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Dialog, DialogTrigger, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { api, ok } from '../../api/client';
import { keys } from '../../api/queries';
import type { Board } from '../../api/types';
import { ConfirmDialog } from '../../ui/dialogs';
import { FieldErrors } from '../../ui/field-errors';
import { notify } from '../../ui/toast-queue';

/** A board's settings (updateBoard, deleteBoard): shown to those whose abilities say manage_boards. */
export function BoardSettings({ board }: { board: Board }) {
  return (
    <DialogTrigger>
      <Button className="button small">
        Settings<span className="visually-hidden"> of {board.name}</span>
      </Button>
      <ModalOverlay className="modal-overlay" isDismissable>
        <Modal className="modal">
          <Dialog className="dialog">{({ close }) => <SettingsForm board={board} close={close} />}</Dialog>
        </Modal>
      </ModalOverlay>
    </DialogTrigger>
  );
}

function SettingsForm({ board, close }: { board: Board; close: () => void }) {
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
    onSuccess: () => {
      done();
      notify(`Saved ${name.trim()}`);
      close();
    },
  });
  const remove = useMutation({
    mutationFn: () => ok(api.DELETE('/boards/{id}', { params: { path: { id: board.id } } })),
    onSuccess: () => {
      done();
      notify(`Deleted ${board.name}`);
      close();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit}>
      <Heading slot="title">Settings of {board.name}</Heading>
      <div className="field">
        <label htmlFor={`name-${board.id}`}>Name</label>
        <input id={`name-${board.id}`} value={name} onChange={(e) => setName(e.target.value)} required maxLength={100} />
      </div>
      <label className="row" style={{ fontWeight: 400 }}>
        <input type="checkbox" checked={gated} onChange={(e) => setGated(e.target.checked)} /> Moves to Done need a human (gated)
      </label>
      <FieldErrors error={save.error} />
      <div className="dialog-actions spread">
        <ConfirmDialog
          trigger={<Button className="button danger">Delete board</Button>}
          title={`Delete ${board.name}?`}
          confirmLabel="Delete board"
          onConfirm={() => remove.mutate()}
        >
          <p>Its cards ({board.ref_prefix}-…) and their criteria are deleted with it. This cannot be undone.</p>
        </ConfirmDialog>
        <span className="grow" />
        <Button className="button" onPress={close}>
          Cancel
        </Button>
        <button type="submit" className="button primary" disabled={save.isPending}>
          Save
        </button>
      </div>
    </form>
  );
}
