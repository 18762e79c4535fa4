import { UsageError, type CommandHandler } from '../src/slack/command-context.js';
import { snippetView } from '../src/slack/views/snippets.js';

export const SNIPPET_USAGE = ['*Usage*', '`/snippet <slug or id>`: show a snippet, for example `/snippet deploy-checklist`'].join('\n');

export type SnippetCommand = { kind: 'show'; id: string };

const KEY = /^\S{1,200}$/;

/** `/snippet <slug or id>`. */
export function parseSnippetCommand(text: string): SnippetCommand {
  const words = text.trim().split(/\s+/).filter(Boolean);
  if (words.length !== 1 || words[0]!.toLowerCase() === 'help') throw new UsageError(SNIPPET_USAGE);
  const id = words[0]!;
  if (!KEY.test(id)) throw new UsageError(SNIPPET_USAGE, `"${id}" is not a snippet slug or id.`);
  return { kind: 'show', id };
}

export const snippetCommand: CommandHandler = async (text, ctx) => {
  const cmd = parseSnippetCommand(text);
  return snippetView(await ctx.call('getSnippet', { id: cmd.id }));
};
