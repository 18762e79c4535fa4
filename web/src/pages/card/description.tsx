import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { Card, Member } from '../../api/types';
import { MarkdownText } from './markdown';
import { MentionPicker } from './mention-picker';

const MAX = 20_000;

/**
 * The card's description: Markdown shown safely, edited in place as the other fields are
 * (leaving the field saves, Escape puts back what was saved); emptied, it is cleared (null).
 */
export function Description({ card, members, mayWrite, onSave }: { card: Card; members: readonly Member[] | undefined; mayWrite: boolean; onSave: (description: string | null) => Promise<unknown> }) {
  const saved = card.description ?? '';
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(saved);
  const cancelled = useRef(false);
  const area = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (!editing) setDraft(saved);
  }, [saved, editing]);

  const save = async () => {
    const next = draft.trim() === '' ? null : draft;
    if ((next ?? '') === saved) return setEditing(false);
    try {
      await onSave(next);
      setEditing(false);
    } catch {
      // the toast says why; the draft stays for another try
    }
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      cancelled.current = true;
      setDraft(saved);
      setEditing(false);
    }
  };

  return (
    <section className="card-description" aria-labelledby="description-heading">
      <div className="row spread">
        <h2 id="description-heading" className="section-title">
          Description
        </h2>
        {mayWrite && !editing && (
          <button type="button" className="button small" onClick={() => setEditing(true)}>
            {card.description ? 'Edit' : 'Add a description'}
          </button>
        )}
      </div>
      {editing ? (
        <div
          // Leaving the field and its mention picker saves; going from one to the other does not.
          onBlur={(e) => {
            if (e.currentTarget.contains(e.relatedTarget as Node | null)) return;
            if (cancelled.current) {
              cancelled.current = false;
              return;
            }
            void save();
          }}
        >
          <label htmlFor="card-description" className="visually-hidden">
            Description (Markdown)
          </label>
          <textarea
            id="card-description"
            ref={area}
            className="description-input"
            value={draft}
            rows={Math.min(20, Math.max(5, draft.split('\n').length + 1))}
            maxLength={MAX * 2}
            autoFocus
            placeholder="Markdown: **bold**, lists, [links](https://…)"
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={onKeyDown}
          />
          <div className="row spread">
            <p className="muted small">Leave the field to save; Escape puts back what was saved.</p>
            <MentionPicker members={members} field={area} value={draft} onChange={setDraft} />
          </div>
        </div>
      ) : card.description ? (
        <div data-testid="card-description">
          <MarkdownText text={card.description} members={members} />
        </div>
      ) : (
        <p className="muted">No description.</p>
      )}
    </section>
  );
}
