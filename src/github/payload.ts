import type { EmitterWebhookEvent } from '@octokit/webhooks';
import type { GithubAccount } from '../domain/github-actor.js';
import { LINKING_ACTIONS, type PullRequestDelivery } from '../domain/github-deliveries.js';

/** A `pull_request` delivery's body, as GitHub's own types describe it. */
export type PullRequestPayload = EmitterWebhookEvent<'pull_request'>['payload'];

/** What the face reads of a `pull_request` payload: the delivery to apply and who sent it. */
export interface ReadPullRequest {
  delivery: PullRequestDelivery;
  sender: GithubAccount;
  mergedBy: GithubAccount | null;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function account(value: unknown): GithubAccount | null {
  if (value === null || typeof value !== 'object') return null;
  const { login, type } = value as { login?: unknown; type?: unknown };
  return typeof login === 'string' ? { login, type: typeof type === 'string' ? type : undefined } : null;
}

/**
 * The delivery in a `pull_request` payload whose action links or moves (undefined for the
 * others: labeled, synchronize, …). The body is not trusted to match GitHub's types: what is
 * missing or of another type is handed on as such, and the operation's input schema refuses it.
 */
export function readPullRequest(deliveryId: string, body: unknown): ReadPullRequest | undefined {
  const payload = body as Partial<PullRequestPayload> | null;
  const action = text(payload?.action);
  if (!(LINKING_ACTIONS as readonly string[]).includes(action)) return undefined;
  const pr = (payload?.pull_request ?? {}) as Partial<PullRequestPayload['pull_request']>;
  const merged = pr.merged === true || (typeof pr.merged_at === 'string' && pr.merged_at !== '');
  return {
    delivery: {
      delivery_id: deliveryId,
      action: action as PullRequestDelivery['action'],
      repository: text(payload?.repository?.full_name),
      number: pr.number as number,
      url: text(pr.html_url),
      title: text(pr.title),
      body: typeof pr.body === 'string' ? pr.body : null,
      branch: text(pr.head?.ref),
      state: pr.state as PullRequestDelivery['state'],
      draft: pr.draft === true,
      merged,
      author_login: account(pr.user)?.login ?? null,
      updated_at: text(pr.updated_at),
    },
    sender: account(payload?.sender) ?? { login: 'github', type: undefined },
    mergedBy: account(pr.merged_by),
  };
}
