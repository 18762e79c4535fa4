import { Help, type Command } from 'commander';

/**
 * `tack --help` lists every command, not only the groups: `tack cards list`, `tack cards move
 * <id> [workflow_status]`, … so a new user finds each one without opening each group's help.
 * A group's own help (`tack cards --help`) stays as commander prints it.
 */
export function listEveryCommand(program: Command, heading: string): void {
  const base = new Help();
  program.configureHelp({
    visibleCommands(cmd: Command): Command[] {
      return base.visibleCommands(cmd).flatMap((sub) =>
        sub.helpGroup() === heading && sub.commands.length > 0 ? sub.commands.filter((leaf) => !isHidden(leaf)) : [sub],
      );
    },
    subcommandTerm(sub: Command): string {
      const words = sub.parent && sub.parent !== program ? [sub.parent.name(), sub.name()] : [sub.name()];
      const args = sub.registeredArguments.map((a) => (a.required ? `<${a.name()}>` : `[${a.name()}]`));
      return [...words, ...args].join(' ');
    },
  });
}

function isHidden(cmd: Command): boolean {
  // commander keeps `hidden` private; help commands and hidden commands both set it.
  return (cmd as unknown as { _hidden?: boolean })._hidden === true;
}
