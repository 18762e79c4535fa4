import { z } from 'zod';

/** The event types of contract §10, which a webhook's `events` name (or name by prefix). */
export const WEBHOOK_EVENT_TYPES = [
  'card.created', 'card.updated', 'card.moved', 'card.deleted', 'card.move_refused',
  'criterion.created', 'criterion.updated', 'criterion.deleted',
  'comment.created', 'comment.updated', 'comment.deleted',
  'todo.created', 'todo.updated', 'todo.completed', 'todo.reopened', 'todo.deleted',
  'milestone.created', 'milestone.updated', 'milestone.deleted',
  'snippet.created', 'snippet.updated', 'snippet.deleted', 'snippet.link_rotated',
  'board.created', 'board.updated', 'board.deleted',
  'member.created', 'member.updated', 'member.removed',
  'token.created', 'token.revoked',
  'webhook.disabled',
] as const;

/** True when a webhook subscribed to `patterns` wants an event of `type`: `*`, the type itself, or a prefix ending in `.`. */
export function matchesEventPatterns(patterns: readonly string[], type: string): boolean {
  return patterns.some((p) => p === '*' || p === type || (p.endsWith('.') && type.startsWith(p)));
}

/** One entry of a webhook's `events`: `*`, a known type, or a prefix ending in `.` of one. */
export const webhookEventPattern = z
  .string()
  .max(64)
  .refine(
    (p) => p === '*' || (WEBHOOK_EVENT_TYPES as readonly string[]).includes(p) || (p.endsWith('.') && WEBHOOK_EVENT_TYPES.some((t) => t.startsWith(p))),
    'must be "*", an event type such as card.moved, or a prefix ending in "." such as card.',
  );
