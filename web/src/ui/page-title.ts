import { useEffect, useSyncExternalStore } from 'react';

/**
 * The document's title names the page (`ENG-42 Sign-up form… · tack`, `Todos · tack`): a
 * page with a name of its own says it (usePageTitle), else the route's static title.
 */
let specific: string | undefined;
const listeners = new Set<() => void>();
const subscribe = (l: () => void) => {
  listeners.add(l);
  return () => listeners.delete(l);
};

/** This page's own title, while it is shown (undefined while it loads). */
export function usePageTitle(title: string | undefined): void {
  useEffect(() => {
    specific = title;
    for (const l of listeners) l();
    return () => {
      if (specific === title) specific = undefined;
      for (const l of listeners) l();
    };
  }, [title]);
}

/** Sets document.title from the page's own title, else `fallback` (the route's). */
export function useDocumentTitle(fallback: string | undefined): void {
  const own = useSyncExternalStore(subscribe, () => specific);
  const title = own ?? fallback;
  useEffect(() => {
    document.title = title ? `${title} · tack` : 'tack';
  }, [title]);
}

/** A long name cut for a title: "Sign-up form validates e-mail…". */
export function shortTitle(text: string, max = 32): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  // At a word's end where there is one not too far back.
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
