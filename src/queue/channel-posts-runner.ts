import { runChannelPosts, type ChannelPostDeps } from '../../jobs/channel-posts.js';
import type { JobsHandle } from './jobs-handle.js';

/** How often the queue is looked at without a NOTIFY (retries, a lost LISTEN connection). */
export const CHANNEL_POSTS_POLL_MS = 5_000;
const CLOSE_GRACE_MS = 5_000;

export interface ChannelPostsHandle extends JobsHandle {
  /** Events were committed: read them and post (one run at a time; a poke during one runs again after it). */
  poke(): void;
}

/**
 * Runs board subscriptions' posts in this process: woken by the events NOTIFY, and every
 * `everyMs` besides. Every process may run it: the cursor, the claim table and the channels'
 * pace are in Postgres, so two processes neither double nor reorder a post.
 */
export function startChannelPosts(deps: ChannelPostDeps, everyMs = CHANNEL_POSTS_POLL_MS): ChannelPostsHandle {
  let stopping = false;
  let running: Promise<void> | undefined;
  let again = false;
  const log = deps.log.child({ component: 'channel-posts' });
  const runDeps: ChannelPostDeps = { ...deps, stopping: () => stopping || (deps.stopping?.() ?? false) };
  const run = async () => {
    do {
      again = false;
      try {
        await runChannelPosts(runDeps);
      } catch (err) {
        log.error({ err: (err as Error).message }, 'channel posts: a run failed; the next one tries again');
      }
    } while (again && !stopping);
  };
  const poke = () => {
    if (stopping) return;
    if (running) {
      again = true;
      return;
    }
    running = run().finally(() => (running = undefined));
  };
  const timer = setInterval(poke, everyMs);
  timer.unref();
  const first = setTimeout(poke, 0);
  first.unref();
  return {
    mode: 'in-process',
    poke,
    async close() {
      stopping = true;
      clearInterval(timer);
      clearTimeout(first);
      if (running) await Promise.race([running, new Promise<void>((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref())]);
    },
  };
}
