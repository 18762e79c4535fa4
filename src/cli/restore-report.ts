import type { RestoreReport } from '../domain/restore-check.js';

/** What `tack restore-check` did, and what it cannot know, in lines a person acts on. */
export function restoreReportLines(r: RestoreReport): string[] {
  const since = r.since.toISOString();
  const lines = [
    `tack: Slack: ${r.pendingMarked} pending post(s) marked unsure. For the next ${r.windowHours} hours every reminder and summary first reads its conversation back to ${since}` +
      ` (${r.sinceGiven ? 'given with --since' : 'the latest write in this database; give --since with the time the backup was taken to read no further back than needed'})` +
      ' and records a message it finds instead of posting it again.',
    `tack: sign-in links: ${r.signinLinksEnded} unused link(s) ended; people ask for a new one.`,
    'tack: credentials: what changed after the backup cannot be known from the database. Tokens revoked and sessions ended since then are live again;' +
      ' tokens and sessions made since then are gone (their holders need new ones); writes made since then are lost.',
    `tack: live tokens (${r.tokens.length}): revoke any that had been revoked, or that you do not recognise (\`tack tokens revoke <id>\`, DELETE /v1/tokens/{id}):`,
  ];
  for (const t of r.tokens) {
    lines.push(
      `  ${t.id}  ${JSON.stringify(t.name)}  ${t.hint}  org ${t.org}  member ${JSON.stringify(t.member)} (${t.role})  scopes ${t.scopes.join(',')}${t.agent ? '  agent' : ''}  created ${t.created_at}  expires ${t.expires_at ?? 'never'}`,
    );
  }
  if (r.sessionsEnded > 0) {
    lines.push(`tack: web sessions: ${r.sessionsEnded} ended (--end-sessions); everyone signs in again.`);
  } else {
    lines.push(`tack: live web sessions (${r.sessions.length}): end one with DELETE /v1/sessions/{id}, or all with \`tack restore-check --end-sessions\`:`);
    for (const s of r.sessions) lines.push(`  ${s.id}  org ${s.org}  member ${JSON.stringify(s.member)}  created ${s.created_at}  last used ${s.last_used_at}`);
  }
  return lines;
}
