import { Argument, Command } from 'commander';
import { VERSION } from '../version.js';
import { apiCommand } from './api-command.js';
import { addClientCommands, RESOURCES_HEADING } from './client-commands.js';
import { complete, completionLines, completionScript, SHELLS, type Shell } from './completion.js';
import { exitWith } from '../client/exit.js';
import { tailCommand } from './events-tail.js';
import { loginCommand, logoutCommand, signinLinkCommand } from './login-commands.js';
import { loadManifest } from '../client/manifest-file.js';
import { listEveryCommand } from './root-help.js';
import { serveCommand, migrateCommand, restoreCheckCommand, workerCommand } from './server-commands.js';
import { githubCommand } from './github-check.js';

/** `--json` asks for errors as the envelope, commander's own usage errors included. */
const jsonErrors = process.argv.slice(2).includes('--json');

function usageEnvelope(text: string): void {
  const message = text.replace(/^error: /, '').trim();
  process.stderr.write(`${JSON.stringify({ code: 'usage_error', http_status: 0, user_message: message })}\n`);
}

/**
 * After a usage error, point at the help of the command that was mistyped (`tack cards move
 * --help` shows the statuses and options that `tack --help` does not).
 */
function hintUsage(command: Command, path: string): void {
  command.showHelpAfterError(`(run \`${path} --help\` for usage)`);
  for (const sub of command.commands) hintUsage(sub, `${path} ${sub.name()}`);
}

/**
 * The `tack` binary. Client commands are generated from the operation table's JSON manifest;
 * each command imports what it needs only when it runs, so `tack --help` stays fast.
 */
const program = new Command()
  .name('tack')
  .description('tack: snippets, cards, todos and milestones from your terminal, Slack and agents')
  .version(VERSION)
  .configureOutput(jsonErrors ? { outputError: usageEnvelope, writeErr: () => {} } : { outputError: (text, write) => write(text) })
  .exitOverride((err) => {
    // commander's own errors (unknown command, missing argument, bad value) are usage errors.
    process.exit(err.exitCode === 0 ? 0 : 2);
  });

program.commandsGroup(RESOURCES_HEADING);
const manifest = await loadManifest();
addClientCommands(program, manifest);
// The live stream is no operation of the table: its command joins the generated `events` group.
program.commands.find((c) => c.name() === 'events')?.addCommand(tailCommand());
listEveryCommand(program, RESOURCES_HEADING);

program.commandsGroup('Client:');
program.addCommand(loginCommand().copyInheritedSettings(program));
program.addCommand(logoutCommand().copyInheritedSettings(program));
program.addCommand(signinLinkCommand().copyInheritedSettings(program));
program.addCommand(apiCommand().copyInheritedSettings(program));
program
  .command('mcp')
  .description('serve the operations as MCP tools over stdio (for agents), calling /v1 with TACK_TOKEN')
  .addHelpText(
    'after',
    `
It lists only the tools the token can use (a read-only token sees the read tools), narrowed by:
  TACK_MCP_TOOLSETS   groups of tools to offer, comma-separated, of: ${[...new Set(manifest.operations.map((op) => op.group))].join(', ')}
                      (getMe is always offered)
  TACK_MCP_READ_ONLY  1: offer the read tools only, whatever the token may do

Examples:
  TACK_TOKEN=tack_live_… tack mcp
  TACK_MCP_TOOLSETS=cards,criteria,todos TACK_MCP_READ_ONLY=1 tack mcp`,
  )
  .action(async () => {
    const { runStdioServer } = await import('../mcp/stdio.js');
    await runStdioServer();
  });
program
  .command('completion')
  .description('print the shell completion script for bash, zsh or fish')
  .addArgument(new Argument('<shell>', 'the shell that runs it').choices(SHELLS))
  .addHelpText(
    'after',
    `
Examples:
  echo 'eval "$(tack completion bash)"' >> ~/.bashrc
  echo 'eval "$(tack completion zsh)"' >> ~/.zshrc
  tack completion fish > ~/.config/fish/completions/tack.fish`,
  )
  .action((shell: Shell) => {
    process.stdout.write(completionScript(shell));
  });

program.commandsGroup('Server:');
program.addCommand(serveCommand().copyInheritedSettings(program));
program.addCommand(workerCommand().copyInheritedSettings(program));
program.addCommand(migrateCommand().copyInheritedSettings(program));
program.addCommand(restoreCheckCommand().copyInheritedSettings(program));
program.addCommand(githubCommand().copyInheritedSettings(program));

program.addHelpText(
  'after',
  `
Environment (client commands):
  TACK_URL         the server (default http://127.0.0.1:3000, or the one \`tack login\` stored)
  TACK_TOKEN       the API token (default: the one \`tack login\` stored for that server)
  TACK_TIMEOUT     seconds to wait for an answer before trying once more (default 60)
  XDG_CONFIG_HOME  where \`tack login\` keeps tack/config.json (default ~/.config)

Output: tables by default; --json prints the response as the API sent it on stdout, and an
error as the API's error envelope (one JSON line) on stderr; --all follows next_cursor
through every page. Deletes ask first on a terminal (--yes skips it). Rate limited, a
command says so on stderr and retries when the server allows. Exit codes: 0 success,
1 error, 2 usage (or a delete you declined), 4 authentication.

Examples:
  tack login --url https://tack.example.com
  tack cards list --board eng --assignee me
  tack cards update ENG-42 --status in_review
  tack todos add "Review ENG-42" --due-on tomorrow
  tack api GET /me
  eval "$(tack completion bash)"`,
);

hintUsage(program, 'tack');

const args = process.argv.slice(2);
if (args[0] === '__complete') {
  // What the completion scripts run at each Tab: the candidates for the words typed so far,
  // read as they are (not parsed as this command's own options).
  process.stdout.write(completionLines(complete(program, args.length > 1 ? args.slice(1) : [''])));
} else {
  try {
    await program.parseAsync(process.argv);
  } catch (err) {
    exitWith(err);
  }
}
