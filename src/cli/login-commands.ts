import { Command } from 'commander';

/** `tack login` and `tack logout`: the token stored for when TACK_TOKEN is not set. */
export function loginCommand(): Command {
  return new Command('login')
    .description('check a token with getMe and store it, with the server URL, for later commands')
    .option('--url <url>', 'the tack server (default: TACK_URL, else http://127.0.0.1:3000)')
    .addHelpText(
      'after',
      '\nThe token is read from stdin (`tack login < token.txt`) or asked for without echo.\n' +
        'It is stored in $XDG_CONFIG_HOME/tack/config.json (default ~/.config), readable only by you.',
    )
    .action(async (opts: { url?: string }) => {
      const { login } = await import('./login.js');
      await login(opts.url);
    });
}

export function logoutCommand(): Command {
  return new Command('logout').description('forget the stored token').action(async () => {
    const { forgetLogin, configPath } = await import('./client-env.js');
    process.stdout.write(forgetLogin() ? `Removed ${configPath()}.\n` : 'No stored login.\n');
  });
}

/** `tack signin-link [--member <id>]`: a one-time link to the web app. */
export function signinLinkCommand(): Command {
  return new Command('signin-link')
    .description('print a one-time link (15 minutes) that signs you in to the web app; --member for another member')
    .option('--member <id>', "the member to sign in instead of yourself (needs config:write; never a role above yours)")
    .option('--json', 'print the response exactly as JSON')
    .action(async (opts: { member?: string; json?: boolean }) => {
      const { printSigninLink } = await import('./signin-link.js');
      await printSigninLink(opts);
    });
}
