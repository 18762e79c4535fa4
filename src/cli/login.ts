import { ApiError } from '../client/api-client.js';
import { CliError, EXIT, exitWith } from '../client/exit.js';
import { cliErrorOf } from '../client/failure.js';
import { DEFAULT_URL, normalizeUrl } from '../client/target.js';
import { storeLogin } from './client-env.js';
import { terminalClient } from './terminal-client.js';

interface Me {
  member: { name: string; role: string };
  org: { slug: string };
  agent: boolean;
}

/** Reads a token, checks it with getMe against the server, and stores both with mode 0600. */
export async function login(urlOption: string | undefined): Promise<void> {
  try {
    const url = normalizeUrl(urlOption ?? process.env.TACK_URL ?? DEFAULT_URL);
    const token = (await readToken()).trim();
    if (token.length === 0) throw new CliError('no token given', EXIT.usage);
    const client = terminalClient({ url, token });
    let me: Me;
    try {
      me = (await client.request({ method: 'GET', path: '/me' })).json as Me;
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) {
        throw new CliError(`${url} does not accept this token (${err.envelope.code}); nothing was stored`, EXIT.auth);
      }
      throw err instanceof ApiError ? cliErrorOf(err) : err;
    }
    const path = storeLogin({ url, token });
    process.stdout.write(
      `Logged in to ${url} as ${me.member.name} (${me.member.role}${me.agent ? ', agent token' : ''}) in ${me.org.slug}.\n` +
        `Token stored in ${path}.\n`,
    );
  } catch (err) {
    exitWith(err);
  }
}

async function readToken(): Promise<string> {
  if (!process.stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
  }
  return promptHidden('Token: ');
}

/** Asks on the terminal without echoing what is typed. */
function promptHidden(prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(prompt);
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    let value = '';
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.removeListener('data', onData);
      process.stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return done();
        if (ch === '\u0003') return done(new CliError('cancelled', EXIT.usage));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}
