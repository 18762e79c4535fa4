import { lazyRouteComponent } from '@tanstack/react-router';
import { reportUnreachable } from './api/connectivity';

/**
 * A page's code, loaded on demand, that never leaves a blank page:
 * - tack unreachable (the server stopped): the page's error says so, and loads by itself
 *   when tack is back (the route's error page retries);
 * - the file gone (a deploy since this page was loaded: 404): the app reloads into the new
 *   build, once per missing file, so a broken deploy cannot loop;
 * - the file there after all (a blip): one retry in place, then the same reload.
 */
export class ChunkLoadError extends Error {
  constructor(readonly offline: boolean) {
    super(offline ? 'tack cannot be reached, so this page could not be loaded.' : 'This page could not be loaded.');
    this.name = 'ChunkLoadError';
  }
}

const CHUNK_ERROR = /Failed to fetch dynamically imported module|error loading dynamically imported module|Importing a module script failed|Unable to preload CSS/i;

function isChunkError(err: unknown): err is Error {
  return err instanceof Error && CHUNK_ERROR.test(err.message);
}

/** The file the browser could not load, from its message (Chromium and Vite name it). */
function chunkUrl(err: Error): string | undefined {
  const m = /(https?:\/\/\S+|\/assets\/\S+)/.exec(err.message);
  return m?.[1]?.replace(/[).,]+$/, '');
}

async function probe(url: string | undefined): Promise<'missing' | 'present' | 'unreachable'> {
  try {
    const res = await fetch(url ?? '/', { method: 'HEAD', cache: 'no-store' });
    if (res.status === 502 || res.status === 503 || res.status === 504) return 'unreachable';
    return res.ok ? 'present' : 'missing';
  } catch {
    return 'unreachable';
  }
}

const RELOADED = 'tack:reloaded-for:';

/** Reloads the page unless it was already reloaded for this file (no reload loop). */
function reloadOnce(what: string): boolean {
  try {
    if (sessionStorage.getItem(RELOADED + what)) return false;
    sessionStorage.setItem(RELOADED + what, new Date().toISOString());
  } catch {
    return false; // no storage: no guard, so no reload
  }
  window.location.reload();
  return true;
}

export async function loadChunk<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (!isChunkError(err)) throw err;
    const url = chunkUrl(err);
    const state = await probe(url);
    if (state === 'unreachable') {
      reportUnreachable();
      throw new ChunkLoadError(true);
    }
    if (state === 'present') {
      try {
        return await load();
      } catch {
        // the browser keeps the failure: a reload fetches it afresh
      }
    }
    if (reloadOnce(url ?? err.message)) return new Promise<never>(() => {});
    throw new ChunkLoadError(false);
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- lazyRouteComponent's own bound
export const lazyPage = <T extends Record<string, any>>(load: () => Promise<T>, name: keyof T & string) => lazyRouteComponent(() => loadChunk(load), name);
