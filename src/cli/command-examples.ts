import type { FieldEntry } from '../operations/manifest.js';

/**
 * What each command's help shows under "Examples:", keyed by the command as typed. Every
 * example is parsed against the command in the tests (test/cli-generation.test.ts), so one
 * that no longer parses fails there. A command of the table without an entry gets one made
 * from its arguments and required options (`examplesOf`).
 */
export const EXAMPLES: Readonly<Record<string, readonly string[]>> = {
  me: ['tack me', 'tack me --json'],
  search: ['tack search "overd"', 'tack search eng-42 --types card,milestone --limit 5'],
  'members list': ['tack members list', 'tack members list --all --json'],
  'members create': ['tack members create --name "Ada Lovelace" --email ada@example.com --role member --tz Europe/London'],
  'members update': ['tack members update mem_123 --tz America/New_York --reminder-hour 8', 'tack members update mem_123 --no-slack-user-id'],
  'members delete': ['tack members delete mem_123', 'tack members delete mem_123 --yes'],
  'members signin-link': ['tack members signin-link mem_123'],
  'tokens list': ['tack tokens list', 'tack tokens list --all'],
  'tokens create': ['tack tokens create --name ci --scopes read --scopes write', 'tack tokens create --name claude --scopes read,write --agent --expires-at 2030-01-31T00:00:00Z'],
  'tokens revoke': ['tack tokens revoke tok_123', 'tack tokens revoke tok_123 --yes'],
  'snippets list': ['tack snippets list --type sql --tag billing', 'tack snippets list --q "invoice total"'],
  'snippets create': [
    'tack snippets create --type sql --name "Monthly revenue" --body - < revenue.sql',
    'tack snippets create --type txt --name "On call" --body "Page #ops first, then the lead" --tags ops --tags runbook',
  ],
  'snippets get': ['tack snippets get monthly-revenue', 'tack snippets get monthly-revenue --json'],
  'snippets update': ['tack snippets update monthly-revenue --body - < revenue.sql', 'tack snippets update monthly-revenue --visibility private --no-category'],
  'snippets delete': ['tack snippets delete monthly-revenue'],
  'snippets rotate-link': ['tack snippets rotate-link monthly-revenue'],
  'snippets versions': ['tack snippets versions monthly-revenue'],
  'snippets version': ['tack snippets version monthly-revenue 2'],
  'boards list': ['tack boards list'],
  'boards create': ['tack boards create --name Engineering --slug eng --ref-prefix ENG --gated'],
  'boards update': ['tack boards update eng --name "Platform engineering"', 'tack boards update eng --no-gated'],
  'boards get': ['tack boards get eng'],
  'boards delete': ['tack boards delete eng'],
  'boards moves': ['tack boards moves eng'],
  'cards activity': ['tack cards activity ENG-42', 'tack cards activity ENG-42 --type card.moved,card.move_refused --all'],
  'events list': ['tack events list --type card. --since 2026-11-01T00:00:00Z', 'tack events list --subject ENG-42 --agent true --json'],
  'cards list': ['tack cards list --board eng --status in_review', 'tack cards list --assignee me --milestone M3 --all'],
  'cards create': [
    'tack cards create --board eng --title "Fix the login redirect" --assignee-ids me --due-on tomorrow',
    'tack cards create --board eng --title "Sign-up form" --criteria "Form renders, validates" --criteria "Errors are announced"',
  ],
  'cards get': ['tack cards get ENG-42'],
  'cards move': ['tack cards move ENG-42 in_review', 'tack cards move ENG-42 wip'],
  'cards update': ['tack cards update ENG-42 --title "Fix the login redirect, for good"', 'tack cards update ENG-42 --status done --assignee-ids me,mem_123', 'tack cards update ENG-42 --no-due-on --no-milestone'],
  'cards moves': ['tack cards moves ENG-42'],
  'cards delete': ['tack cards delete ENG-42', 'tack cards delete ENG-42 --yes'],
  'criteria list': ['tack criteria list ENG-42'],
  'criteria add': ['tack criteria add ENG-42 --title "Works on a phone, too"'],
  'criteria update': ['tack criteria update ENG-42 crit_123 --done', 'tack criteria update ENG-42 crit_123 --position 0'],
  'criteria delete': ['tack criteria delete ENG-42 crit_123'],
  'comments list': ['tack comments list ENG-42', 'tack comments list ENG-42 --all --json'],
  'comments add': ['tack comments add ENG-42 "Looks good; @Ada, can you check the redirect?"'],
  'comments update': ['tack comments update ENG-42 cmt_123 --body "Fixed the typo"'],
  'comments delete': ['tack comments delete ENG-42 cmt_123'],
  'cards comment': ['tack cards comment ENG-42 "Merged; @Ada, over to you"', 'tack cards comment ENG-42 - < notes.md'],
  'cards comments': ['tack cards comments ENG-42'],
  'cards links': ['tack cards links ENG-42', 'tack cards links ENG-42 --json'],
  'todos list': ['tack todos list --due today', 'tack todos list --done false --scope personal'],
  'todos add': ['tack todos add "Review ENG-42, then merge" --due-on tomorrow --priority high'],
  'todos done': ['tack todos done todo_123'],
  'todos reopen': ['tack todos reopen todo_123'],
  'todos update': ['tack todos update todo_123 --title "Review ENG-42 again" --no-due-on'],
  'todos delete': ['tack todos delete todo_123'],
  'milestones list': ['tack milestones list'],
  'milestones create': ['tack milestones create --ref M3 --name "Sprint 3" --kind sprint --ends-on 2030-01-31'],
  'milestones status': ['tack milestones status M3'],
  'milestones get': ['tack milestones get M3'],
  'milestones update': ['tack milestones update M3 --ref M4 --name "Sprint 4"', 'tack milestones update M3 --no-ends-on'],
  'milestones delete': ['tack milestones delete M3'],
  'jobs run': ['tack jobs run todo-reminders', 'tack jobs run milestone-summaries'],
  'sessions list': ['tack sessions list'],
  'sessions end': ['tack sessions end ses_123'],
  'webhooks list': ['tack webhooks list', 'tack webhooks list --json'],
  'webhooks create': [
    'tack webhooks create --url https://hooks.example.com/tack --events "*"',
    'tack webhooks create --url https://ci.example.com/hooks --events card.,comment.created --description "CI: cards and new comments"',
  ],
  'webhooks get': ['tack webhooks get wh_123'],
  'webhooks update': ['tack webhooks update wh_123 --events card.moved,card.move_refused', 'tack webhooks update wh_123 --no-enabled', 'tack webhooks update wh_123 --enabled'],
  'webhooks delete': ['tack webhooks delete wh_123'],
  'webhooks rotate-secret': ['tack webhooks rotate-secret wh_123'],
  'webhooks deliveries': ['tack webhooks deliveries wh_123', 'tack webhooks deliveries wh_123 --limit 100 --json'],
  'webhooks redeliver': ['tack webhooks redeliver wh_123 whd_123'],
};

/** The examples of a command: its own, or one made from its arguments and required options. */
export function examplesOf(words: readonly string[], positional: readonly FieldEntry[], options: readonly FieldEntry[]): readonly string[] {
  const own = EXAMPLES[words.join(' ')];
  if (own) return own;
  const args = positional.filter((f) => f.required || f.in === 'path').map((f) => `<${f.name}>`);
  const required = options.filter((f) => f.required).map((f) => `--${f.name.replace(/_/g, '-')} <${f.name}>`);
  return [['tack', ...words, ...args, ...required].join(' ')];
}
