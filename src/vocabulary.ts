/**
 * The fixed vocabularies of tack, each written out once. The domain's schemas, the database
 * row types (src/db/schema.ts), the Slack commands and the CLI all take them from here, so it
 * stands beside the layers rather than in one of them: `src/db` may not import the domain, and
 * a face may not import `src/db`. No imports: the CLI loads this file without the rest of tack.
 *
 * The database's check constraints spell the same lists in the migrations that created them
 * (a migration is history and never imports live code); test/vocabulary.test.ts keeps the two
 * equal.
 */

export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const WORKFLOW_STATUSES = ['backlog', 'in_progress', 'in_review', 'done'] as const;
export type WorkflowStatus = (typeof WORKFLOW_STATUSES)[number];

export const PRIORITIES = ['urgent', 'high', 'medium', 'low'] as const;
export type Priority = (typeof PRIORITIES)[number];

export const MILESTONE_KINDS = ['sprint', 'deadline'] as const;
export type MilestoneKind = (typeof MILESTONE_KINDS)[number];

export const SNIPPET_TYPES = ['html', 'sql', 'json', 'txt'] as const;
export type SnippetType = (typeof SNIPPET_TYPES)[number];

export const SNIPPET_VISIBILITIES = ['private', 'team'] as const;
export type SnippetVisibility = (typeof SNIPPET_VISIBILITIES)[number];

export const CADENCES = ['daily', 'weekly'] as const;
export type SlackCadence = (typeof CADENCES)[number];

/**
 * Words people type for a workflow status (in Slack, and on the command line), keyed as
 * `aliasKey` writes them. The API itself takes only the statuses: strict input is never
 * rewritten; the faces that read what people type translate first.
 */
export const WORKFLOW_STATUS_ALIASES: Readonly<Record<string, WorkflowStatus>> = {
  backlog: 'backlog',
  todo: 'backlog',
  inprogress: 'in_progress',
  progress: 'in_progress',
  doing: 'in_progress',
  started: 'in_progress',
  wip: 'in_progress',
  inreview: 'in_review',
  review: 'in_review',
  reviewing: 'in_review',
  done: 'done',
  finished: 'done',
  closed: 'done',
};

/** The lookup key of a typed word: `In Progress`, `in-progress` and `in_progress` are one. */
export function aliasKey(text: string): string {
  return text.toLowerCase().replace(/[\s_-]+/g, '');
}

/** A value of a vocabulary as people type it, or undefined when it names none. */
export function resolveAlias<T extends string>(aliases: Readonly<Record<string, T>>, text: string): T | undefined {
  const key = aliasKey(text);
  return Object.hasOwn(aliases, key) ? aliases[key] : undefined;
}

export function parseWorkflowStatus(text: string): WorkflowStatus | undefined {
  return resolveAlias(WORKFLOW_STATUS_ALIASES, text);
}

/**
 * Vocabularies with aliases, for faces generated from the operation table: a field whose
 * allowed values are exactly `values` also accepts `aliases` where a person types it.
 */
export const ALIASED_VOCABULARIES: readonly { values: readonly string[]; aliases: Readonly<Record<string, string>> }[] = [
  { values: WORKFLOW_STATUSES, aliases: WORKFLOW_STATUS_ALIASES },
];

/** `a, b, c or d`, for messages. */
export function listWords(words: readonly string[], last = 'or'): string {
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} ${last} ${words[words.length - 1]}`;
}
