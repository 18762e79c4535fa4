import { runChannelPosts, type ChannelPostDeps } from '../../jobs/channel-posts.js';
import { wokenLoop } from '../../jobs/event-consumers.js';
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
 * `everyMs` besides (the notifier's `wokenLoop`). Every process may run it: the cursor, the
 * claim table and the channels' pace are in Postgres, so two processes neither double nor
 * reorder a post. Closing tells a run in progress to stop between posts, and waits for it a
 * short while at most (a post waiting on a slow Slack is claimed and recovered later).
 */
export function startChannelPosts(deps: ChannelPostDeps, everyMs = CHANNEL_POSTS_POLL_MS): ChannelPostsHandle {
  let stopping = false;
  const log = deps.log.child({ component: 'channel-posts' });
  const runDeps: ChannelPostDeps = { ...deps, stopping: () => stopping || (deps.stopping?.() ?? false) };
  const loop = wokenLoop(
    async () => {
      await runChannelPosts(runDeps);
    },
    { everyMs, onError: (err) => log.error({ err: err.message }, 'channel posts: a run failed; the next one tries again') },
  );
  return {
    mode: 'in-process',
    poke: loop.poke,
    async close() {
      stopping = true;
      await Promise.race([loop.close(), new Promise<void>((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref())]);
    },
  };
}
