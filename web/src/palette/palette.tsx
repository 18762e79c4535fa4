import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useEffect, useMemo, useState } from 'react';
import { Autocomplete, Dialog, Header, Input, Menu, MenuItem, MenuSection, Modal, ModalOverlay, SearchField, Text } from 'react-aria-components';
import { api, ok } from '../api/client';
import { keys } from '../api/queries';
import type { components } from '../api/openapi';
import { STATUS_LABEL, type WorkflowStatus } from '../api/types';
import { NAV } from '../ui/nav';
import { notify, notifyError } from '../ui/toast-queue';
import { createControl, startCreating } from './shortcuts';
import './palette.css';

type Hit = components['schemas']['SearchResult'];

/** An entry of the palette: something to open, or a command to run. */
interface Entry {
  id: string;
  label: string;
  detail?: string | undefined;
  kind: string;
  run(): void;
}


const KIND_LABEL: Record<Hit['type'], string> = { card: 'Card', todo: 'Todo', snippet: 'Snippet', milestone: 'Milestone', board: 'Board' };

/** `ENG-42`, `move eng-42`, `move ENG-42 to rev`: the card a move command is about, and the words after `to`. */
const MOVE = /^(?:move\s+)?([a-z][a-z0-9]{0,9}-[1-9][0-9]{0,8})(?:\s+(?:to\s*)?(.*))?$/i;

/** What was typed, once the typing pauses (150 ms), so a search is not sent per keystroke. */
function useSettled(value: string, ms = 150): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * The command palette (⌘K): search as you type over `search` (a request per pause in typing;
 * TanStack Query aborts the one a newer query replaces), and commands: go to a page, create a
 * card where the page offers it, move a card to a state `listCardMoves` allows.
 */
export default function Palette({ onClose, onHelp }: { onClose: () => void; onHelp: () => void }) {
  const [text, setText] = useState('');
  const q = useSettled(text.trim());
  const navigate = useNavigate();
  const qc = useQueryClient();
  const found = useQuery({
    queryKey: ['search', q],
    queryFn: ({ signal }) => ok(api.GET('/search', { params: { query: { q, limit: 8 } }, signal })),
    enabled: q !== '',
    staleTime: 10_000,
    placeholderData: (previous) => previous,
  });
  const move = MOVE.exec(text.trim());
  const moveRef = move?.[1]?.toUpperCase();
  const card = useQuery({ ...cardQuery(moveRef ?? ''), enabled: moveRef !== undefined, retry: false });
  const moves = useQuery({
    queryKey: keys.moves(moveRef ?? ''),
    queryFn: ({ signal }) => ok(api.GET('/cards/{id}/moves', { params: { path: { id: moveRef! } }, signal })),
    enabled: moveRef !== undefined && card.isSuccess,
    retry: false,
  });
  // Read once, when the palette opens: whether this page offers a "create".
  const [createLabel] = useState(() => {
    const control = createControl();
    return control === null ? null : control.classList.contains('add-card') ? 'Create card' : 'Add a todo';
  });

  const close = (then?: () => void) => {
    onClose();
    // After the dialog is gone, so focus goes where the command puts it.
    if (then) setTimeout(then, 0);
  };

  const moveTo = async (id: string, ref: string, to: WorkflowStatus) => {
    try {
      await ok(api.PATCH('/cards/{id}', { params: { path: { id } }, body: { workflow_status: to } }));
      notify(`Moved ${ref} to ${STATUS_LABEL[to]}`);
      void qc.invalidateQueries({ queryKey: ['cards'] });
      void qc.invalidateQueries({ queryKey: keys.card(ref) });
      void qc.invalidateQueries({ queryKey: keys.moves(ref) });
    } catch (err) {
      notifyError(err);
    }
  };

  const sections = useMemo(() => {
    const typed = text.trim().toLowerCase();
    const out: { id: string; title: string; entries: Entry[] }[] = [];
    if (card.data && moves.data) {
      const c = card.data;
      const wanted = (move?.[2] ?? '').trim().toLowerCase();
      const entries = moves.data.data
        .filter((m) => m.allowed && m.workflow_status !== c.workflow_status)
        .filter((m) => wanted === '' || STATUS_LABEL[m.workflow_status].toLowerCase().includes(wanted) || m.workflow_status.includes(wanted))
        .map<Entry>((m) => ({
          id: `move-${m.workflow_status}`,
          label: `Move ${c.ref} to ${STATUS_LABEL[m.workflow_status]}`,
          detail: c.title,
          kind: 'Command',
          run: () => close(() => void moveTo(c.id, c.ref, m.workflow_status)),
        }));
      if (entries.length > 0) out.push({ id: 'moves', title: 'Move', entries });
    }
    if (q !== '' && found.data) {
      const entries = found.data.data.map<Entry>((hit) => ({
        id: `${hit.type}-${hit.id}`,
        label: hit.type === 'card' ? `${hit.ref} ${hit.title}` : hit.title,
        detail: hit.excerpt,
        kind: KIND_LABEL[hit.type],
        run: () => close(() => void navigate(linkTo(hit))),
      }));
      if (entries.length > 0) out.push({ id: 'results', title: 'Results', entries });
    }
    const commands: Entry[] = [
      ...(createLabel ? [{ id: 'create', label: createLabel, kind: 'Command', run: () => close(() => void startCreating()) }] : []),
      ...NAV.map((p) => ({ id: `go-${p.to}`, label: `Go to ${p.label.toLowerCase()}`, kind: 'Command', run: () => close(() => void navigate({ to: p.to })) })),
      { id: 'help', label: 'Keyboard shortcuts', kind: 'Command', run: onHelp },
    ].filter((c) => typed === '' || c.label.toLowerCase().includes(typed) || typed.split(/\s+/).every((w) => c.label.toLowerCase().includes(w)));
    if (commands.length > 0) out.push({ id: 'commands', title: 'Commands', entries: commands });
    return out;
    // eslint-disable-next-line react-hooks/exhaustive-deps -- close, moveTo and navigate are stable in effect
  }, [text, q, found.data, card.data, moves.data, createLabel]);

  const byId = new Map(sections.flatMap((s) => s.entries).map((e) => [e.id, e]));
  const searching = q !== text.trim() || found.isFetching;

  return (
    <ModalOverlay className="modal-overlay palette-overlay" isDismissable isOpen onOpenChange={(open) => !open && onClose()}>
      <Modal className="modal palette">
        <Dialog className="palette-dialog" aria-label="Search or run a command">
          <Autocomplete inputValue={text} onInputChange={setText}>
            <SearchField aria-label="Search or run a command" className="palette-field" autoFocus>
              <Input className="palette-input" placeholder="Search cards, todos, snippets… or type a command" />
            </SearchField>
            <p className="visually-hidden" role="status" aria-live="polite">
              {searching ? 'Searching…' : q !== '' && found.data ? `${found.data.data.length} results` : ''}
            </p>
            <Menu
              className="palette-list"
              aria-label="Results and commands"
              items={sections}
              onAction={(id) => byId.get(String(id))?.run()}
              renderEmptyState={() => <p className="palette-empty">{searching ? 'Searching…' : 'Nothing found'}</p>}
            >
              {(section) => (
                <MenuSection id={section.id} className="palette-section">
                  <Header className="palette-heading">{section.title}</Header>
                  {section.entries.map((entry) => (
                    <MenuItem key={entry.id} id={entry.id} textValue={entry.label} className="palette-item">
                      <Text slot="label" className="palette-label">
                        {entry.label}
                      </Text>
                      {entry.detail && (
                        <Text slot="description" className="palette-detail">
                          {entry.detail}
                        </Text>
                      )}
                      <span className="palette-kind">{entry.kind}</span>
                    </MenuItem>
                  ))}
                </MenuSection>
              )}
            </Menu>
          </Autocomplete>
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}

function cardQuery(ref: string) {
  return { queryKey: keys.card(ref), queryFn: ({ signal }: { signal: AbortSignal }) => ok(api.GET('/cards/{id}', { params: { path: { id: ref } }, signal })) };
}

/** The page of a search result. */
function linkTo(hit: Hit): { to: string; params?: Record<string, string> } {
  switch (hit.type) {
    case 'card':
      return { to: '/cards/$ref', params: { ref: hit.ref ?? hit.id } };
    case 'snippet':
      return { to: '/snippets/$key', params: { key: hit.ref ?? hit.id } };
    case 'milestone':
      return { to: '/milestones/$ref', params: { ref: hit.ref ?? hit.id } };
    case 'board':
      return { to: '/boards/$slug', params: { slug: hit.ref ?? hit.id } };
    case 'todo':
      return { to: '/todos' };
  }
}
