import type { RefObject } from 'react';
import type { Member } from '../../api/types';

interface Props {
  members: readonly Member[] | undefined;
  /** The field the mention goes into, at its cursor. */
  field: RefObject<HTMLTextAreaElement | null>;
  value: string;
  onChange: (value: string) => void;
}

/**
 * A member picker that inserts `@mem_…` at the cursor of a Markdown field and gives the field
 * its focus back (contract §11: a mention is stored as `@mem_…`; the card shows the name). Used
 * by the description and the comments.
 */
export function MentionPicker({ members, field, value, onChange }: Props) {
  const mention = (memberId: string) => {
    if (!memberId) return;
    const el = field.current;
    const at = el ? el.selectionStart : value.length;
    const before = value.slice(0, at);
    const text = `${before && !/\s$/.test(before) ? ' ' : ''}@${memberId} `;
    onChange(before + text + value.slice(el ? el.selectionEnd : at));
    requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(at + text.length, at + text.length);
    });
  };
  return (
    <select aria-label="Mention a member" value="" onChange={(e) => mention(e.target.value)}>
      <option value="">@ Mention…</option>
      {(members ?? []).map((m) => (
        <option key={m.id} value={m.id}>
          {m.name}
        </option>
      ))}
    </select>
  );
}
