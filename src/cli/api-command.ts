import { Command } from 'commander';
import type { ApiOptions } from './api-call.js';

const collect = (value: string, previous: string[]) => [...previous, value];

/** `tack api <method> <path>`: any `/v1` call with the stored login, as `gh api` does for GitHub's API. */
export function apiCommand(): Command {
  return new Command('api')
    .description('call any /v1 endpoint with your login (TACK_TOKEN, or `tack login`) and print the JSON it answers')
    .argument('<method>', 'GET, POST, PATCH or DELETE')
    .argument('<path>', 'the path under /v1, with a query string if you like: /cards?board=eng')
    .option('-f, --raw-field <key=value>', 'a field as text: a query parameter for GET and DELETE, a body field otherwise (repeat it; key[]=value makes a list)', collect, [])
    .option('-F, --field <key=value>', 'the same, but true, false, null and numbers are JSON and @file reads a file', collect, [])
    .option('--input <file>', 'the JSON body, from a file or - for stdin')
    .option('--paginate', 'follow next_cursor through every page of a list and print {"data": [...]}')
    .addHelpText(
      'after',
      `
The answer's body goes to stdout as the API sent it; an error, as the API's error envelope (one
JSON line), goes to stderr, with the exit codes of every command. Writes carry an
Idempotency-Key, so a retry after a lost answer is applied once.

Examples:
  tack api GET /me
  tack api GET '/cards?board=eng&status=in_review' --paginate
  tack api POST /todos -f title="Review ENG-42, then merge" -f due_on=tomorrow
  tack api PATCH /cards/ENG-42 -F assignee_ids[]=me -f workflow_status=in_review
  tack api POST /snippets --input snippet.json
  tack api DELETE /todos/todo_123`,
    )
    .action(async (method: string, path: string, opts: ApiOptions) => {
      const { callApi } = await import('./api-call.js');
      await callApi(method, path, opts);
    });
}
