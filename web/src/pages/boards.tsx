import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from '@tanstack/react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, ok } from '../api/client';
import { keys, useBoards, useMe } from '../api/queries';
import { ErrorPanel, Loading } from '../ui/error-panel';
import { FieldErrors } from '../ui/field-errors';
import { LockIcon } from '../ui/icons';
import { BoardSettings } from './boards/board-settings';

export function BoardsPage() {
  const boards = useBoards();
  const me = useMe();
  const canConfigure = me.data?.abilities.manage_boards ?? false;
  return (
    <section className="page narrow">
      <div className="page-head">
        <h1>Boards</h1>
      </div>
      {boards.isError && <ErrorPanel error={boards.error} retry={() => void boards.refetch()} />}
      {boards.isPending && <Loading />}
      {boards.data && boards.data.length === 0 && <p className="muted">No boards yet. Create the first one below; its cards are numbered with its card prefix (ENG-1, ENG-2…).</p>}
      {boards.data && boards.data.length > 0 && (
        <ul className="list list-box">
          {boards.data.map((b) => (
            <li key={b.id}>
              <div className="grow">
                <Link to="/boards/$slug" params={{ slug: b.slug }} search={{}} className="strong-link">
                  {b.name}
                </Link>
                <div className="muted small">
                  {b.ref_prefix}-… · /{b.slug}
                </div>
              </div>
              {b.gated && (
                <span className="chip" title="Moving a card to Done needs a human">
                  <LockIcon /> Gated
                </span>
              )}
              {canConfigure && <BoardSettings board={b} />}
            </li>
          ))}
        </ul>
      )}
      {canConfigure && <NewBoard />}
    </section>
  );
}

function NewBoard() {
  const [name, setName] = useState('');
  const [prefix, setPrefix] = useState('');
  const [gated, setGated] = useState(false);
  const qc = useQueryClient();
  const navigate = useNavigate();
  const create = useMutation({
    meta: { inline: true },
    mutationFn: () => ok(api.POST('/boards', { body: { name, ref_prefix: prefix.toUpperCase(), gated } })),
    onSuccess: async (board) => {
      await qc.invalidateQueries({ queryKey: keys.boards });
      void navigate({ to: '/boards/$slug', params: { slug: board.slug }, search: {} });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form className="panel" onSubmit={submit} aria-labelledby="new-board">
      <h2 id="new-board" style={{ marginTop: 0 }}>
        New board
      </h2>
      <div className="row">
        <div className="field grow">
          <label htmlFor="board-name">Name</label>
          <input id="board-name" value={name} onChange={(e) => setName(e.target.value)} required />
        </div>
        <div className="field">
          <label htmlFor="board-prefix">Card prefix</label>
          <input id="board-prefix" value={prefix} onChange={(e) => setPrefix(e.target.value)} placeholder="ENG" size={8} required />
        </div>
      </div>
      <div className="row spread">
        <label className="row" style={{ fontWeight: 400 }}>
          <input type="checkbox" checked={gated} onChange={(e) => setGated(e.target.checked)} /> Moves to Done need a human (gated)
        </label>
        <button className="button primary" type="submit" disabled={create.isPending}>
          Create board
        </button>
      </div>
      <FieldErrors error={create.error} />
    </form>
  );
}
