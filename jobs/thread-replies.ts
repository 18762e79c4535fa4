import type { WebClient } from '@slack/web-api';
import type { Marker } from './sweep.js';

// At most this many pages of 200 replies per thread: a card's thread is rarely longer.
const REPLY_PAGES = 10;

/**
 * The ts of a reply in the thread of `threadTs` that carries `marker`: how an interrupted
 * thread post is found before it is posted again (replies are not in conversations.history,
 * so `SlackSweep.findMarked` cannot see them).
 */
export async function findMarkedReply(slack: WebClient, channel: string, threadTs: string, marker: Marker): Promise<string | undefined> {
  let cursor: string | undefined;
  for (let page = 0; page < REPLY_PAGES; page++) {
    const res = await slack.conversations.replies({ channel, ts: threadTs, limit: 200, include_all_metadata: true, ...(cursor ? { cursor } : {}) });
    for (const m of res.messages ?? []) {
      const meta = m.metadata as { event_type?: string; event_payload?: Record<string, unknown> } | undefined;
      if (!m.ts || m.ts === threadTs || meta?.event_type !== marker.event_type || !meta.event_payload) continue;
      if (Object.entries(marker.event_payload).every(([k, v]) => meta.event_payload![k] === v)) return m.ts;
    }
    cursor = res.response_metadata?.next_cursor || undefined;
    if (!res.has_more || !cursor) break;
  }
  return undefined;
}
