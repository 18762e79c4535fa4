import { lazy, Suspense, useMemo, useState } from 'react';
import { useShortcuts } from './shortcuts';
import './palette-button.css';

// The palette and the shortcut list load on first use, never with the page.
const Palette = lazy(() => import('./palette'));
const ShortcutHelp = lazy(() => import('./shortcut-help'));

/**
 * The command palette's button in the top bar, the keyboard shortcuts, and the palette and
 * shortcut list themselves once opened (mounted once, by the shell).
 */
export function PaletteHost() {
  const [open, setOpen] = useState<'palette' | 'help' | null>(null);
  const actions = useMemo(() => ({ openPalette: () => setOpen('palette'), showHelp: () => setOpen('help') }), []);
  useShortcuts(actions);
  const mac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
  return (
    <>
      <button type="button" className="palette-button" onClick={() => setOpen('palette')} aria-keyshortcuts={mac ? 'Meta+K' : 'Control+K'}>
        <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
          <circle cx="7" cy="7" r="4.5" fill="none" stroke="currentColor" strokeWidth="1.6" />
          <path d="M10.5 10.5 14 14" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" />
        </svg>
        <span className="palette-button-label">Search</span>
        <kbd className="palette-button-kbd" aria-hidden="true">{mac ? '⌘K' : 'Ctrl K'}</kbd>
      </button>
      <Suspense fallback={null}>
        {open === 'palette' && <Palette onClose={() => setOpen(null)} onHelp={() => setOpen('help')} />}
        {open === 'help' && <ShortcutHelp onClose={() => setOpen(null)} />}
      </Suspense>
    </>
  );
}
