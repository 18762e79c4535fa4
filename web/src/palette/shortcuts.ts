import { useEffect } from 'react';

/**
 * Keyboard shortcuts as Linear has them: ⌘K / Ctrl+K and `/` open the palette, `C` creates,
 * `J` / `K` move between cards, `?` lists them all. A single-key shortcut never fires while
 * the person types in a field or while a dialog is open; ⌘K works everywhere.
 */
export const SHORTCUTS: readonly { keys: string[]; does: string }[] = [
  { keys: ['⌘', 'K'], does: 'Search or run a command (Ctrl+K elsewhere than a Mac)' },
  { keys: ['/'], does: 'Search' },
  { keys: ['C'], does: 'Create a card (on a board) or a todo' },
  { keys: ['J'], does: 'Next card' },
  { keys: ['K'], does: 'Previous card' },
  { keys: ['?'], does: 'These shortcuts' },
  { keys: ['Esc'], does: 'Close the palette or a dialog' },
];

export interface ShortcutActions {
  openPalette(): void;
  showHelp(): void;
}

function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag === 'INPUT') return !['checkbox', 'radio', 'button', 'submit', 'reset'].includes((target as HTMLInputElement).type);
  // React Aria's date segments and spin buttons take keys too.
  return target.getAttribute('role') === 'spinbutton' || target.getAttribute('role') === 'textbox';
}

/** The page's own "create" control: a board's first "+ Add card", or the todos' title field. */
export function createControl(): HTMLElement | null {
  return document.querySelector<HTMLElement>('.add-card, #todo-title');
}

/** Opens the page's create control and puts the focus in it; false when the page has none. */
export function startCreating(): boolean {
  const control = createControl();
  if (!control) return false;
  control.click();
  control.focus();
  return true;
}

/** Focuses the card after (1) or before (-1) the focused one, in reading order. */
export function moveBetweenCards(step: 1 | -1): boolean {
  const cards = [...document.querySelectorAll<HTMLElement>('.tile-title')];
  if (cards.length === 0) return false;
  const active = document.activeElement;
  const at = cards.findIndex((c) => c === active || c.closest('[data-card-tile], li, article')?.contains(active));
  const next = at === -1 ? (step === 1 ? 0 : cards.length - 1) : Math.min(cards.length - 1, Math.max(0, at + step));
  cards[next]!.focus();
  return true;
}

export function useShortcuts(actions: ShortcutActions): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.isComposing) return;
      if ((e.metaKey || e.ctrlKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        actions.openPalette();
        return;
      }
      if (e.metaKey || e.ctrlKey || e.altKey || typingIn(e.target)) return;
      if (document.querySelector('[role="dialog"], [role="alertdialog"]')) return;
      const key = e.key;
      if (key === '/') {
        e.preventDefault();
        actions.openPalette();
      } else if (key === '?') {
        e.preventDefault();
        actions.showHelp();
      } else if (key === 'c' || key === 'C') {
        if (startCreating()) e.preventDefault();
      } else if (key === 'j' || key === 'J' || key === 'k' || key === 'K') {
        if (moveBetweenCards(key.toLowerCase() === 'j' ? 1 : -1)) e.preventDefault();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [actions]);
}
