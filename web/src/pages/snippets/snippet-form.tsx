import { useState, type FormEvent } from 'react';
import type { Snippet } from '../../api/types';
import { FieldErrors } from '../../ui/field-errors';
import { SelectField } from '../../ui/select-field';

export interface SnippetFields {
  type: Snippet['type'];
  name: string;
  body: string;
  category: string | null;
  tags: string[];
  visibility: Snippet['visibility'];
}

const TYPES = ['txt', 'sql', 'json', 'html'].map((t) => ({ id: t, label: t.toUpperCase() }));
const VISIBILITY = [
  { id: 'team', label: 'Team' },
  { id: 'private', label: 'Private' },
];

interface Props {
  initial?: Snippet;
  busy: boolean;
  error: unknown;
  submitLabel: string;
  onSubmit: (fields: SnippetFields) => void;
  onCancel: () => void;
}

/** Create or edit a snippet; on edit the type is fixed and a new body makes a new version. */
export function SnippetForm({ initial, busy, error, submitLabel, onSubmit, onCancel }: Props) {
  const [type, setType] = useState<Snippet['type']>(initial?.type ?? 'txt');
  const [name, setName] = useState(initial?.name ?? '');
  const [body, setBody] = useState(initial?.body ?? '');
  const [category, setCategory] = useState(initial?.category ?? '');
  const [tags, setTags] = useState((initial?.tags ?? []).join(', '));
  const [visibility, setVisibility] = useState<Snippet['visibility']>(initial?.visibility ?? 'team');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit({
      type,
      name: name.trim(),
      body,
      category: category.trim() || null,
      tags: tags.split(',').map((t) => t.trim()).filter(Boolean),
      visibility,
    });
  };
  return (
    <form onSubmit={submit} className="snippet-form">
      <div className="row">
        <div className="field grow">
          <label htmlFor="snippet-name">Name</label>
          <input id="snippet-name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
        </div>
        {!initial && <SelectField label="Type" value={type} options={TYPES} onChange={(t) => setType(t as Snippet['type'])} />}
        <SelectField label="Visibility" value={visibility} options={VISIBILITY} onChange={(v) => setVisibility(v as Snippet['visibility'])} />
      </div>
      <div className="row">
        <div className="field grow">
          <label htmlFor="snippet-category">Category</label>
          <input id="snippet-category" value={category} onChange={(e) => setCategory(e.target.value)} placeholder="ops/runbooks" />
        </div>
        <div className="field grow">
          <label htmlFor="snippet-tags">Tags (comma separated)</label>
          <input id="snippet-tags" value={tags} onChange={(e) => setTags(e.target.value)} />
        </div>
      </div>
      <div className="field">
        <label htmlFor="snippet-body">Body</label>
        <textarea id="snippet-body" value={body} onChange={(e) => setBody(e.target.value)} rows={12} required spellCheck={false} />
      </div>
      <FieldErrors error={error} />
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button primary" disabled={busy}>
          {submitLabel}
        </button>
      </div>
    </form>
  );
}
