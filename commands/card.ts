import { UsageError, type CommandHandler } from '../src/slack/command-context.js';
import { mentionNames } from '../src/slack/mention-names.js';
import { countCommentsOp } from '../src/operations/comments.js';
import { cardMovedView, cardView } from '../src/slack/views/cards.js';
import { withCardLinks } from '../src/slack/views/card-links.js';
import { listWords, parseWorkflowStatus, WORKFLOW_STATUSES, type WorkflowStatus } from '../src/vocabulary.js';

const STATUS_WORDS = listWords(WORKFLOW_STATUSES);

export const CARD_USAGE = [
  '*Usage*',
  '`/card <ref>`: show a card with a select that moves it, for example `/card ENG-42`',
  `\`/card <ref> move <status>\`: move it to ${STATUS_WORDS} (or wip, review…)`,
].join('\n');

export type CardCommand = { kind: 'show'; ref: string } | { kind: 'move'; ref: string; status: WorkflowStatus };

const REF = /^\S{1,64}$/;

/** `/card <ref>`, `/card <ref> move <status>`. */
export function parseCardCommand(text: string): CardCommand {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const [ref, verb, ...rest] = words;
  if (ref === undefined || ref.toLowerCase() === 'help') throw new UsageError(CARD_USAGE);
  if (!REF.test(ref)) throw new UsageError(CARD_USAGE, `"${ref}" is not a card ref.`);
  if (verb === undefined) return { kind: 'show', ref };
  if (verb.toLowerCase() !== 'move') throw new UsageError(CARD_USAGE, `Unknown action "${verb}".`);
  if (rest.length === 0) throw new UsageError(CARD_USAGE, `Say where to: ${STATUS_WORDS}.`);
  const status = parseWorkflowStatus(rest.join(' '));
  if (!status) throw new UsageError(CARD_USAGE, `"${rest.join(' ')}" is not a status: use ${STATUS_WORDS}.`);
  return { kind: 'move', ref, status };
}

export const cardCommand: CommandHandler = async (text, ctx) => {
  const cmd = parseCardCommand(text);
  if (cmd.kind === 'show') {
    const card = await ctx.call('getCard', { id: cmd.ref });
    const { count } = await ctx.call(countCommentsOp, { id: card.id });
    const names = await mentionNames(ctx.call, card.description);
    return withCardLinks(cardView(card, { comments: count, names }), (await ctx.call('listCardLinks', { id: card.id })).data);
  }
  const moved = await ctx.call('moveCard', { id: cmd.ref, workflow_status: cmd.status });
  return cardMovedView(moved, await mentionNames(ctx.call, moved.description));
};
