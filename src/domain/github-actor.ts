/**
 * Who acts in a GitHub delivery, and whether as a person or an agent (contract §12). A pure
 * rule over the payload's users, apart from the database, so it is tested on its own.
 */

/** A GitHub account as a payload names it (`sender`, `merged_by`). */
export interface GithubAccount {
  login: string;
  type?: string | undefined;
}

export interface GithubActor {
  /** The login events name (through the member whose `github_login` it is, if any). */
  login: string;
  /** An agent caller: a gated board refuses its moves to done, as for an agent token. */
  agent: boolean;
}

/** An account that is an agent: not a `User`, a `[bot]` login, or a login in `GITHUB_AGENT_LOGINS`. */
export function isAgentAccount(account: GithubAccount, agentLogins: readonly string[]): boolean {
  const login = account.login.toLowerCase();
  return account.type !== 'User' || login.endsWith('[bot]') || agentLogins.includes(login);
}

/**
 * The actor of a delivery: for a merge, `merged_by` (a merge with `merged_by` null is an
 * agent's, named by the sender); otherwise the delivery's `sender`.
 */
export function githubActor(
  delivery: { sender: GithubAccount; merged: boolean; mergedBy: GithubAccount | null },
  agentLogins: readonly string[],
): GithubActor {
  if (delivery.merged) {
    if (delivery.mergedBy === null) return { login: delivery.sender.login, agent: true };
    return { login: delivery.mergedBy.login, agent: isAgentAccount(delivery.mergedBy, agentLogins) };
  }
  return { login: delivery.sender.login, agent: isAgentAccount(delivery.sender, agentLogins) };
}
