/**
 * The words a person types for an operation: `tack <group> <verb>`, or one word for `tack me`.
 * Names that read better than the generic rule are listed; any other operation still gets a
 * command from its operationId (see `commandPath`).
 */
const NAMED: Record<string, readonly string[]> = {
  getMe: ['me'],
  listMembers: ['members', 'list'],
  createMember: ['members', 'create'],
  updateMember: ['members', 'update'],
  deleteMember: ['members', 'delete'],
  listTokens: ['tokens', 'list'],
  createToken: ['tokens', 'create'],
  revokeToken: ['tokens', 'revoke'],
  listSnippets: ['snippets', 'list'],
  createSnippet: ['snippets', 'create'],
  getSnippet: ['snippets', 'get'],
  updateSnippet: ['snippets', 'update'],
  deleteSnippet: ['snippets', 'delete'],
  rotateSnippetLink: ['snippets', 'rotate-link'],
  listSnippetVersions: ['snippets', 'versions'],
  getSnippetVersion: ['snippets', 'version'],
  listBoards: ['boards', 'list'],
  createBoard: ['boards', 'create'],
  updateBoard: ['boards', 'update'],
  getBoard: ['boards', 'get'],
  deleteBoard: ['boards', 'delete'],
  listCards: ['cards', 'list'],
  getCard: ['cards', 'get'],
  createCard: ['cards', 'create'],
  moveCard: ['cards', 'move'],
  deleteCard: ['cards', 'delete'],
  listCardMoves: ['cards', 'moves'],
  listCardLinks: ['cards', 'links'],
  listBoardMoves: ['boards', 'moves'],
  listCriteria: ['criteria', 'list'],
  addCriterion: ['criteria', 'add'],
  updateCriterion: ['criteria', 'update'],
  deleteCriterion: ['criteria', 'delete'],
  listComments: ['comments', 'list'],
  addComment: ['comments', 'add'],
  updateComment: ['comments', 'update'],
  deleteComment: ['comments', 'delete'],
  listTodos: ['todos', 'list'],
  createTodo: ['todos', 'add'],
  completeTodo: ['todos', 'done'],
  reopenTodo: ['todos', 'reopen'],
  updateTodo: ['todos', 'update'],
  deleteTodo: ['todos', 'delete'],
  getMilestoneStatus: ['milestones', 'status'],
  listMilestones: ['milestones', 'list'],
  createMilestone: ['milestones', 'create'],
  getMilestone: ['milestones', 'get'],
  updateMilestone: ['milestones', 'update'],
  deleteMilestone: ['milestones', 'delete'],
  runJob: ['jobs', 'run'],
  createSigninLink: ['members', 'signin-link'],
  listSessions: ['sessions', 'list'],
  deleteSession: ['sessions', 'end'],
  search: ['search'],
  listEvents: ['events', 'list'],
  getCardActivity: ['cards', 'activity'],
  listWebhooks: ['webhooks', 'list'],
  createWebhook: ['webhooks', 'create'],
  getWebhook: ['webhooks', 'get'],
  updateWebhook: ['webhooks', 'update'],
  deleteWebhook: ['webhooks', 'delete'],
  rotateWebhookSecret: ['webhooks', 'rotate-secret'],
  listWebhookDeliveries: ['webhooks', 'deliveries'],
  redeliverWebhookEvent: ['webhooks', 'redeliver'],
};

/**
 * Body fields taken as arguments after the path parameters, where the command reads better
 * that way: `tack todos add "Ship it"`, `tack cards move ENG-42 done`.
 */
export const POSITIONAL_FIELDS: Record<string, readonly string[]> = {
  createTodo: ['title'],
  moveCard: ['workflow_status'],
  addComment: ['body'],
  search: ['q'],
};

/**
 * More commands for one operation, under other words. `moveCard` changes anything about a
 * card: `tack cards move ENG-42 done` says it one way, `tack cards update ENG-42 --title …`
 * the way every other resource does (as `gh issue edit` and `stripe customers update`).
 */
export const MORE_COMMANDS: Record<string, readonly { path: readonly string[]; positional: readonly string[]; summary: string }[]> = {
  addComment: [{ path: ['cards', 'comment'], positional: ['body'], summary: 'Comment on a card (Markdown); `@name` or `@mem_…` mentions a member' }],
  listComments: [{ path: ['cards', 'comments'], positional: [], summary: "A card's comments, oldest first" }],
  moveCard: [{ path: ['cards', 'update'], positional: [], summary: "Change a card's title, description, status, due date, milestone or assignees; done on a gated board needs a human" }],
};

/**
 * The flags of a field where its API name is not the word to show, so one thing has one word
 * on every command: the first is the one help shows, the others are taken too. A card's state
 * is `--status` when listing cards and when changing one (the API names the filter `status`
 * and the field `workflow_status`), and `--workflow-status` works on both. A field not listed
 * here has one flag, its own name.
 */
export const OPTION_FLAGS: Record<string, Readonly<Record<string, readonly string[]>>> = {
  listCards: { status: ['status', 'workflow-status'] },
  moveCard: { workflow_status: ['status', 'workflow-status'] },
};

/** One line of help for each group; a group not listed here gets a generic line. */
export const GROUP_DESCRIPTIONS: Record<string, string> = {
  me: 'who the token belongs to',
  members: 'members of the organization',
  tokens: 'API tokens',
  snippets: 'versioned snippets with revocable public links',
  boards: 'boards and their gates',
  cards: 'board cards',
  criteria: 'acceptance criteria of a card',
  comments: "a card's discussion",
  todos: 'your todos',
  milestones: 'sprints and deadlines',
  jobs: 'background jobs',
  sessions: 'your web app sessions',
  search: 'find cards, todos, snippets, milestones and boards',
  events: 'what changed, who changed it and how (history and a live stream)',
};

/**
 * Other names of a group: the singular, as the Slack commands spell it (`/milestone status`
 * is `tack milestone status`, the name it had before it joined `milestones`).
 */
export const GROUP_ALIASES: Record<string, string[]> = {
  members: ['member'],
  tokens: ['token'],
  snippets: ['snippet'],
  boards: ['board'],
  cards: ['card'],
  criteria: ['criterion'],
  comments: ['comment'],
  todos: ['todo'],
  milestones: ['milestone'],
  jobs: ['job'],
  sessions: ['session'],
  events: ['event'],
};

/**
 * `listSnippetVersions` in group `snippets` → `snippets list-versions`: the group is the
 * first word, the operationId without the group's own noun is the verb.
 */
export function commandPath(operationId: string, group: string): readonly string[] {
  const named = NAMED[operationId];
  if (named) return named;
  const words = operationId.split(/(?=[A-Z])/).map((w) => w.toLowerCase());
  const noun = group.replace(/s$/, '');
  const verb = words.filter((w) => w !== group && w !== noun && w.replace(/s$/, '') !== noun);
  return [group, verb.length > 0 ? verb.join('-') : words.join('-')];
}
