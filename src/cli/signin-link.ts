import { ApiError } from '../client/api-client.js';
import { clientTarget } from './client-env.js';
import { exitWith } from '../client/exit.js';
import { cliErrorOf } from '../client/failure.js';
import { terminalClient } from './terminal-client.js';

export interface SigninLinkOptions {
  member?: string;
  json?: boolean;
}

/**
 * `tack signin-link`: a one-time link to the web app for the token's own member (found with
 * getMe), or for `--member <id>`, made by `createSigninLink`. The link alone goes to stdout,
 * so `open "$(tack signin-link)"` works; when it expires goes to stderr.
 */
export async function printSigninLink(options: SigninLinkOptions): Promise<void> {
  try {
    const client = terminalClient(clientTarget());
    const memberId = options.member ?? ((await client.request({ method: 'GET', path: '/me' })).json as { member: { id: string } }).member.id;
    const res = await client.request({ method: 'POST', path: `/members/${encodeURIComponent(memberId)}/signin-links` });
    if (options.json) {
      process.stdout.write(`${res.text}\n`);
      return;
    }
    const link = res.json as { url: string; expires_at: string };
    process.stdout.write(`${link.url}\n`);
    process.stderr.write(`(one use; valid until ${link.expires_at})\n`);
  } catch (err) {
    exitWith(err instanceof ApiError ? cliErrorOf(err) : err);
  }
}
