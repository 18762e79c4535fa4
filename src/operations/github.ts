import { cardKeyInput } from '../domain/cards.js';
import { applyPullRequest, deliveryResultSchema, pullRequestDeliveryInput } from '../domain/github-deliveries.js';
import { cardLinksSchema, listCardLinks } from '../domain/github-links.js';
import { defineCoreOperation, defineOperation } from './operation.js';

/** GitHub's links on cards (contract §12), on every face. */
export const githubOperations = [
  defineOperation({
    name: 'listCardLinks',
    summary: "The pull requests that name a card (its ref in their branch, title or body), with each one's state",
    group: 'cards',
    method: 'GET',
    path: '/cards/{id}/links',
    scope: 'read',
    params: cardKeyInput,
    output: cardLinksSchema.describe('Every pull request linked to the card, most recently updated first'),
    run: (ctx, input) => listCardLinks(ctx, input),
  }),
];

/**
 * One `pull_request` delivery, applied by the GitHub face (src/github) as its sender: only
 * that face runs it, so it has no HTTP binding, MCP tool or CLI command. A write like every
 * other: in one transaction with its delivery record, its links and its events.
 */
export const applyGithubPullRequestOp = defineCoreOperation({
  name: 'applyGithubPullRequest',
  summary: 'Apply a GitHub pull_request delivery: link the cards it names, move the cards it closes',
  group: 'cards',
  scope: 'write',
  input: pullRequestDeliveryInput,
  output: deliveryResultSchema,
  idempotent: true,
  run: (ctx, input) => applyPullRequest(ctx, input),
});
