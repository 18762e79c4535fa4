import type { Ctx } from '../domain/context.js';
import { commentsOfCard, criteriaOfCard, type AnsweredType, type SubjectKey, type SubjectType } from '../domain/event-subjects.js';
import { deliveryCards, type PullRequestDelivery } from '../domain/github-deliveries.js';

type Input = Record<string, unknown>;

/**
 * What one write operation changes, for its events (contract §10). The event of each thing is
 * made by `event-recording.ts` from the thing as its read operation answers it before and after
 * the write: `touches` names what the write may change or delete (read before it runs; a
 * write that `answersBefore` hands that over itself, and names its thing here only for a refusal),
 * `makes` what it made (read from its answer). A todo and the criterion it mirrors are
 * followed from each other on their own. The type follows from the difference: created,
 * deleted (`member.removed`), updated, or a more telling one (`card.moved`,
 * `todo.completed`, `todo.reopened`, `token.revoked`, `snippet.link_rotated`); a write that
 * changes nothing records nothing.
 */
export interface ChangeDescription {
  touches?: (ctx: Ctx, input: Input) => SubjectKey[] | Promise<SubjectKey[]>;
  makes?: (answer: Record<string, unknown>) => SubjectKey[];
  /**
   * Error codes of a refusal that is recorded although nothing changed (`card.move_refused`
   * about the card of `touches`): the attempt of an agent stays visible.
   */
  refusals?: readonly string[];
  /**
   * The answer is this thing as its read operation answers it once the write is done (the
   * write ends by reading it in its transaction, as `moveCard` does with `loadCard`): its
   * "after" is taken from the answer, one read less for every such write.
   */
  answers?: AnsweredType;
  /**
   * With `answers`: the write also hands over the thing as it was before it
   * (`ctx.reportBefore`, taken in its own statement), so it is not read before the write runs;
   * what it links to (a mirrored todo's criterion) is read when it is handed over.
   */
  answersBefore?: true;
}

/** A write that records no event, and why. */
export interface NoEvents {
  none: string;
}

export type EventDescription = ChangeDescription | NoEvents;

const text = (input: Input, name: string): string => String(input[name]);
const one =
  (type: SubjectType, field = 'id') =>
  (_ctx: Ctx, input: Input): SubjectKey[] => [{ type, id: text(input, field) }];
const made =
  (type: SubjectType) =>
  (answer: Record<string, unknown>): SubjectKey[] => [{ type, id: String(answer.id) }];

/**
 * Every write of the operation table, by name; a test walks the table and fails for a write
 * missing here, so a new operation cannot forget its events.
 */
export const eventDescriptions: Readonly<Record<string, EventDescription>> = {
  // Members and tokens (only owners, admins and the member concerned see these).
  createMember: { makes: made('member') },
  updateMember: { touches: one('member') },
  deleteMember: { touches: one('member') },
  createToken: { makes: made('token') },
  revokeToken: { touches: one('token') },

  createSnippet: { makes: made('snippet'), answers: 'snippet' },
  updateSnippet: { touches: one('snippet') },
  deleteSnippet: { touches: one('snippet') },
  rotateSnippetLink: { touches: one('snippet') },

  createBoard: { makes: made('board') },
  updateBoard: { touches: one('board') },
  deleteBoard: { touches: one('board') },

  // A card made with criteria is one change: `card.created` (its data counts them).
  createCard: { makes: made('card') },
  moveCard: { touches: one('card'), refusals: ['gated_move_requires_human'], answers: 'card', answersBefore: true },
  // Its criteria and comments go with it, and the todos that mirrored them are unlinked: one event each.
  deleteCard: {
    touches: async (ctx, input) => [
      { type: 'card', id: text(input, 'id') },
      ...(await criteriaOfCard(ctx, text(input, 'id'))),
      ...(await commentsOfCard(ctx, text(input, 'id'))),
    ],
  },
  addCriterion: { makes: made('criterion') },
  updateCriterion: { touches: one('criterion', 'criterion_id') },
  deleteCriterion: { touches: one('criterion', 'criterion_id') },
  // `data` is the comment as listComments answers it (mentions as `@mem_…`): notifications read it.
  addComment: { makes: made('comment') },
  updateComment: { touches: one('comment', 'comment_id') },
  deleteComment: { touches: one('comment', 'comment_id') },
  // The cards a pull request names: each one moved is `card.moved`; a refused move records its own `card.move_refused`.
  applyGithubPullRequest: { touches: (ctx, input) => deliveryCards(ctx, input as unknown as PullRequestDelivery) },

  // An existing criterion it mirrors takes its title.
  createTodo: { touches: (_ctx, input) => (input.criterion_id === undefined ? [] : [{ type: 'criterion', id: text(input, 'criterion_id') }]), makes: made('todo'), answers: 'todo' },
  completeTodo: { answers: 'todo', answersBefore: true },
  reopenTodo: { answers: 'todo', answersBefore: true },
  updateTodo: { touches: one('todo'), answers: 'todo' },
  deleteTodo: { touches: one('todo') },

  createMilestone: { makes: made('milestone') },
  updateMilestone: { touches: one('milestone', 'milestone') },
  deleteMilestone: { touches: one('milestone', 'ref') },

  runJob: { none: 'posts due reminders and summaries to Slack; it changes only what was sent' },
  createSigninLink: { none: 'sign-in links record no event (contract §10)' },
  deleteSession: { none: 'sessions record no event (contract §10)' },
  subscribeMilestone: { none: 'Slack subscriptions record no event (contract §10)' },
  unsubscribeMilestone: { none: 'Slack subscriptions record no event (contract §10)' },
  subscribeBoard: { none: 'Slack subscriptions record no event (contract §10)' },
  unsubscribeBoard: { none: 'Slack subscriptions record no event (contract §10)' },
  markNotificationsRead: { none: "a member's own notifications being read changes nothing anyone else sees" },
  createWebhook: { none: 'webhooks record no event (contract §10)' },
  updateWebhook: { none: 'webhooks record no event (contract §10)' },
  deleteWebhook: { none: 'webhooks record no event (contract §10)' },
  rotateWebhookSecret: { none: 'webhooks record no event (contract §10)' },
  redeliverWebhookEvent: { none: 'webhooks record no event (contract §10); it queues a delivery' },
};
