import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The web app's HTML for one page URL, with `<link rel="modulepreload">` for the code of the
 * page it shows: the browser fetches the page's chunk alongside the app's entry instead of
 * after the entry has run and the router asked for it (one round trip less on first load).
 * Which files a page needs comes from the build's manifest (vite's `.vite/manifest.json`).
 */

/** The page (its source under web/) each page URL shows. `/` goes on to the first board. */
export const PAGE_SOURCES: Readonly<Record<string, string>> = {
  '/': 'src/pages/board.tsx',
  '/boards': 'src/pages/boards.tsx',
  '/boards/:slug': 'src/pages/board.tsx',
  '/cards/:ref': 'src/pages/card.tsx',
  '/todos': 'src/pages/todos.tsx',
  '/snippets': 'src/pages/snippets.tsx',
  '/snippets/:id': 'src/pages/snippet.tsx',
  '/milestones': 'src/pages/milestones.tsx',
  '/milestones/:ref': 'src/pages/milestone.tsx',
  '/settings': 'src/pages/settings/profile.tsx',
  '/settings/api-keys': 'src/pages/settings/api-keys.tsx',
  '/settings/sessions': 'src/pages/settings/sessions.tsx',
  '/settings/members': 'src/pages/settings/members.tsx',
};

interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
}
type Manifest = Record<string, ManifestChunk>;

export interface AppHtml {
  html: string;
  etag: string;
}

interface Built {
  mtimeMs: number;
  byPage: Map<string, AppHtml>;
}

/** Files a chunk needs before it runs (itself and its static imports), by manifest key. */
function closure(manifest: Manifest, key: string, into: Set<string>): Set<string> {
  const chunk = manifest[key];
  if (!chunk || into.has(chunk.file)) return into;
  into.add(chunk.file);
  for (const dep of chunk.imports ?? []) closure(manifest, dep, into);
  return into;
}

const etagOf = (html: string) => `"${createHash('sha256').update(html).digest('base64url').slice(0, 27)}"`;

/** Reads the build once (again when index.html changes, a new build) and answers each page's HTML. */
export function appHtmlReader(webDir: string): (route: string | undefined) => AppHtml | undefined {
  const indexFile = join(webDir, 'index.html');
  const manifestFile = join(webDir, '.vite', 'manifest.json');
  let built: Built | undefined;
  const build = (mtimeMs: number): Built => {
    const index = readFileSync(indexFile, 'utf8');
    const byPage = new Map<string, AppHtml>([['', { html: index, etag: etagOf(index) }]]);
    if (existsSync(manifestFile) && index.includes('</head>')) {
      const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest;
      const entry = Object.keys(manifest).find((k) => manifest[k]!.isEntry);
      const loaded = entry ? closure(manifest, entry, new Set()) : new Set<string>();
      for (const src of new Set(Object.values(PAGE_SOURCES))) {
        const key = Object.keys(manifest).find((k) => manifest[k]!.src === src);
        if (!key) continue;
        const files = [...closure(manifest, key, new Set(loaded))].filter((f) => !loaded.has(f) && f.endsWith('.js'));
        const links = files.map((f) => `    <link rel="modulepreload" crossorigin href="/${f}">\n`).join('');
        const html = index.replace('</head>', `${links}  </head>`);
        byPage.set(src, { html, etag: etagOf(html) });
      }
    }
    return { mtimeMs, byPage };
  };
  return (route) => {
    if (!existsSync(indexFile)) return undefined;
    const mtimeMs = statSync(indexFile).mtimeMs;
    if (!built || built.mtimeMs !== mtimeMs) built = build(mtimeMs);
    const src = route === undefined ? undefined : PAGE_SOURCES[route];
    return (src !== undefined ? built.byPage.get(src) : undefined) ?? built.byPage.get('');
  };
}
