import { randomUUID } from 'node:crypto';
import { Webhooks } from '@octokit/webhooks';
import { Command } from 'commander';
import { loadConfig } from '../config.js';

/** What a check's answer means, in plain words; undefined when all is well. */
export function checkProblem(status: number): string | undefined {
  if (status >= 200 && status < 300) return undefined;
  if (status === 404) return 'the server answered 404: GITHUB_WEBHOOK_SECRET is not set on the server (or the URL is not tack\'s /github/webhooks).';
  if (status === 401) return 'the server answered 401: its GITHUB_WEBHOOK_SECRET differs from the one here (and from GitHub\'s, if GitHub uses this one).';
  if (status === 429) return 'the server answered 429: too many requests from this address; try again in a minute.';
  return `the server answered ${status}.`;
}

/**
 * `tack github check`: sends a ping signed with GITHUB_WEBHOOK_SECRET, as GitHub does, to the
 * webhook URL (`--url`, else APP_URL's /github/webhooks) and says plainly what is wrong.
 */
export function githubCommand(): Command {
  const github = new Command('github').description('GitHub: pull requests that name a card move it');
  github
    .command('check')
    .description('send a signed ping to the webhook URL, as GitHub would, and say what is wrong')
    .option('--url <url>', 'the webhook URL GitHub is given (default: APP_URL/github/webhooks)')
    .action(async (options: { url?: string }) => {
      const config = loadConfig();
      const secret = config.github.webhookSecret;
      if (!secret) {
        process.stderr.write('tack: GITHUB_WEBHOOK_SECRET is not set here: set it to the secret given to the server and to GitHub.\n');
        process.exit(2);
      }
      const url = options.url ?? `${config.appUrl}/github/webhooks`;
      const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 0 });
      let status: number;
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'user-agent': 'GitHub-Hookshot/tack-check',
            'x-github-event': 'ping',
            'x-github-delivery': randomUUID(),
            'x-hub-signature-256': await new Webhooks({ secret }).sign(body),
          },
          body,
          signal: AbortSignal.timeout(10_000),
        });
        status = res.status;
      } catch (err) {
        // fetch's own error says only "fetch failed": the reason (ECONNREFUSED, a refused port, a timeout) is its cause.
        const { cause } = err as { cause?: { code?: string; message?: string } };
        const reason = cause?.code ?? cause?.message ?? (err as Error).message;
        process.stderr.write(`tack: could not reach ${url} (${reason}): is the server running, and is the URL right?\n`);
        process.exit(1);
      }
      const problem = checkProblem(status);
      if (problem) {
        process.stderr.write(`tack: ${url}: ${problem}\n`);
        process.exit(1);
      }
      process.stdout.write(`tack: ${url} answered the signed ping (${status}): GitHub's deliveries will be accepted.\n`);
    });
  return github;
}
