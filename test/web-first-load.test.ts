import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

/**
 * Issue 32's budget: no page of the web app loads more than 150 KB of JavaScript, gzipped,
 * before it is idle. Read from the build's manifest (dist/web/.vite/manifest.json, `npm run
 * build`), not timed: a page's first load is the app's entry with every file it imports
 * statically, the page's own chunk with its static imports, and the toast region, which
 * loads when the browser is first idle. What loads on first use (a select's list, a dialog,
 * the date picker, the command palette) is not counted: that is the point of the budget.
 */

const BUDGET_KB = 150;
const WEB = fileURLToPath(new URL('../dist/web/', import.meta.url));
const MANIFEST = `${WEB}.vite/manifest.json`;

interface Chunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}
type Manifest = Record<string, Chunk>;

function readManifest(): Manifest {
  if (!existsSync(MANIFEST)) throw new Error(`${MANIFEST} is missing: run \`npm run build\` first`);
  return JSON.parse(readFileSync(MANIFEST, 'utf8')) as Manifest;
}

/** The files a chunk loads before it runs: itself and its static imports, transitively. */
function staticClosure(manifest: Manifest, key: string, into = new Set<string>()): Set<string> {
  const chunk = manifest[key];
  if (!chunk) throw new Error(`the manifest has no ${key}`);
  if (into.has(chunk.file)) return into;
  into.add(chunk.file);
  for (const dep of chunk.imports ?? []) staticClosure(manifest, dep, into);
  return into;
}

const gzipKb = (file: string) => gzipSync(readFileSync(`${WEB}${file}`), { level: 9 }).length / 1024;

/** Every page's first-load JavaScript, gzipped, in KB, by the page's source file. */
export function firstLoads(manifest: Manifest): Map<string, { kb: number; files: string[] }> {
  // Pages are what the router loads; a page's own lazy parts (the card's Markdown) are not pages.
  const routed = new Set(routedPages());
  const entry = Object.keys(manifest).find((k) => manifest[k]!.isEntry);
  if (!entry) throw new Error('the manifest has no entry');
  const idle = Object.keys(manifest).find((k) => manifest[k]!.src === 'src/ui/toast-region.tsx');
  if (!idle) throw new Error('the manifest has no toast region (src/ui/toast-region.tsx)');
  const shell = staticClosure(manifest, idle, staticClosure(manifest, entry));
  const pages = Object.keys(manifest).filter((k) => manifest[k]!.isDynamicEntry && routed.has(manifest[k]!.src ?? ''));
  const out = new Map<string, { kb: number; files: string[] }>();
  // `/` (Home, in the entry) goes on to the first board: the board page's load.
  for (const page of pages) {
    const files = [...staticClosure(manifest, page, new Set(shell))].filter((f) => f.endsWith('.js'));
    out.set(manifest[page]!.src!, { kb: files.reduce((sum, f) => sum + gzipKb(f), 0), files });
  }
  return out;
}

/** The page files the router loads (`import('./pages/…')` in web/src/router.tsx). */
function routedPages(): string[] {
  const router = readFileSync(fileURLToPath(new URL('../web/src/router.tsx', import.meta.url)), 'utf8');
  return [...new Set([...router.matchAll(/import\('\.\/(pages\/[^']+)'\)/g)].map((m) => `src/${m[1]}.tsx`))];
}

describe('first-load JavaScript of every page', () => {
  const manifest = readManifest();
  const loads = firstLoads(manifest);

  it('covers every page the router loads', () => {
    const routed = routedPages();
    expect(routed.length).toBeGreaterThan(10);
    expect([...loads.keys()].sort()).toEqual(routed.sort());
    // Every routed page is a chunk of its own.
    expect(routed.filter((src) => !Object.values(manifest).some((c) => c.isDynamicEntry && c.src === src))).toEqual([]);
  });

  it(`stays under ${BUDGET_KB} KB gzipped for every page`, () => {
    const over = [...loads].filter(([, l]) => l.kb >= BUDGET_KB).map(([page, l]) => `${page}: ${l.kb.toFixed(1)} KB (${l.files.join(', ')})`);
    expect(over).toEqual([]);
  });

  it('leaves the code of a select list, a modal dialog, the date picker and Markdown off every first load', () => {
    const lazy = ['src/ui/select-control.tsx', 'src/ui/modal.tsx', 'src/ui/date-picker.tsx', 'src/palette/palette.tsx'].map((src) => {
      const key = Object.keys(manifest).find((k) => manifest[k]!.src === src);
      if (!key) throw new Error(`the manifest has no ${src}`);
      return manifest[key]!.file;
    });
    for (const [page, l] of loads) expect(l.files.filter((f) => lazy.includes(f) || /\/markdown-[\w-]+\.js$/.test(f)), page).toEqual([]);
    expect(Object.values(manifest).some((c) => /\/markdown-[\w-]+\.js$/.test(c.file))).toBe(true);
  });
});
