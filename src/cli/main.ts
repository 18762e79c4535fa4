import { Command } from 'commander';
import { serveCommand, migrateCommand } from './server-commands.js';

/**
 * The `tack` binary. Each command imports what it needs only when it runs, so
 * `tack --help` stays fast.
 */
const program = new Command()
  .name('tack')
  .description('tack: snippets, cards, todos and milestones from your terminal, Slack and agents')
  .version(process.env.npm_package_version ?? '0.1.0')
  .showHelpAfterError('(run `tack --help` for usage)')
  .configureOutput({ outputError: (text, write) => write(text) })
  .exitOverride((err) => {
    // commander's own errors (unknown command, missing argument) are usage errors.
    process.exit(err.exitCode === 0 ? 0 : 2);
  });

program.addCommand(serveCommand());
program.addCommand(migrateCommand());

await program.parseAsync(process.argv);
