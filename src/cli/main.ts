import { Command } from 'commander';
import { VERSION } from '../version.js';
import { addClientCommands, RESOURCES_HEADING } from './client-commands.js';
import { exitWith } from './exit.js';
import { loginCommand, logoutCommand, signinLinkCommand } from './login-commands.js';
import { loadManifest } from './manifest-file.js';
import { listEveryCommand } from './root-help.js';
import { serveCommand, migrateCommand, restoreCheckCommand, workerCommand } from './server-commands.js';

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
addClientCommands(program, await loadManifest());
listEveryCommand(program, RESOURCES_HEADING);

program.commandsGroup('Client:');
program.addCommand(loginCommand().copyInheritedSettings(program));
program.addCommand(logoutCommand().copyInheritedSettings(program));
program.addCommand(signinLinkCommand().copyInheritedSettings(program));
program
  .command('mcp')
  .description('serve every operation as an MCP tool over stdio (for agents), calling /v1 with TACK_TOKEN')
  .action(async () => {
    const { runStdioServer } = await import('../mcp/stdio.js');
    await runStdioServer();
  });

program.commandsGroup('Server:');
program.addCommand(serveCommand().copyInheritedSettings(program));
program.addCommand(workerCommand().copyInheritedSettings(program));
program.addCommand(migrateCommand().copyInheritedSettings(program));
program.addCommand(restoreCheckCommand().copyInheritedSettings(program));

program.addHelpText(
  'after',
  `
Environment (client commands):
  TACK_URL         the server (default http://127.0.0.1:3000, or the one \`tack login\` stored)
  TACK_TOKEN       the API token (default: the one \`tack login\` stored for that server)
  XDG_CONFIG_HOME  where \`tack login\` keeps tack/config.json (default ~/.config)

Output: tables by default; --json prints the response as the API sent it on stdout, and an
error as the API's error envelope (one JSON line) on stderr; --all follows next_cursor
through every page. Exit codes: 0 success, 1 error, 2 usage, 4 authentication.`,
);

hintUsage(program, 'tack');

try {
  await program.parseAsync(process.argv);
} catch (err) {
  exitWith(err);
}
