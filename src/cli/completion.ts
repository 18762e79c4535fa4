import type { Argument, Command, Option } from 'commander';

/**
 * Shell completion, as gh and the Stripe CLI do it: the shell asks `tack __complete <words>`
 * at each Tab and shows what it prints, so completion always knows the commands, options
 * and values of the tack that runs, and one engine (this file) serves bash, zsh and fish.
 */

/** Values to offer for an option or argument whose parser is not commander's `choices` (enums with aliases, booleans). */
export const completionValues = new WeakMap<Option | Argument, readonly string[]>();

export interface Candidate {
  value: string;
  description?: string;
}

/**
 * What may come next on `tack <words>`: `words` are the words after `tack`, the last one the
 * word being typed (empty after a space). An empty answer after an option that takes a
 * value without fixed ones (`--body`) leaves it to the shell (file names).
 */
export function complete(program: Command, words: readonly string[]): Candidate[] {
  const current = words[words.length - 1] ?? '';
  let cmd = program;
  let positional = 0;
  let expectsValue: Option | undefined;
  for (const word of words.slice(0, -1)) {
    if (expectsValue) {
      const takes = expectsValue.required || valuesOf(expectsValue).includes(word);
      expectsValue = undefined;
      if (takes) continue;
    }
    if (word.startsWith('-') && word !== '-') {
      const option = findOption(cmd, word.split('=')[0]!);
      if (option && (option.required || option.optional) && !word.includes('=')) expectsValue = option;
      continue;
    }
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub) {
      cmd = sub;
      positional = 0;
    } else positional++;
  }
  if (expectsValue && (expectsValue.required || !current.startsWith('-'))) {
    const values = valuesOf(expectsValue);
    if (values.length > 0 || expectsValue.required) return matching(values.map((value) => ({ value })), current);
  }
  if (current.startsWith('-')) return matching(optionsOf(cmd), current);
  const subcommands = cmd.commands.filter((c) => !isHidden(c));
  if (subcommands.length > 0) return matching(subcommands.map((c) => ({ value: c.name(), description: firstLine(c.description()) })), current);
  const argument = cmd.registeredArguments[positional];
  return argument ? matching(valuesOf(argument).map((value) => ({ value })), current) : [];
}

function matching(candidates: Candidate[], prefix: string): Candidate[] {
  return candidates.filter((c) => c.value.startsWith(prefix));
}

function valuesOf(item: Option | Argument): readonly string[] {
  return item.argChoices ?? completionValues.get(item) ?? [];
}

/** The options of `cmd` and those it inherits (`--help`), visible ones only. */
function optionsOf(cmd: Command): Candidate[] {
  const out: Candidate[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) {
    for (const option of c.options) {
      if (option.hidden || !option.long) continue;
      if (c !== cmd && option.long === '--version') continue;
      out.push({ value: option.long, description: firstLine(option.description) });
    }
  }
  out.push({ value: '--help', description: 'display help for command' });
  return [...new Map(out.map((c) => [c.value, c])).values()];
}

function findOption(cmd: Command, flag: string): Option | undefined {
  for (let c: Command | null = cmd; c; c = c.parent) {
    const option = c.options.find((o) => o.long === flag || o.short === flag);
    if (option) return option;
  }
  return undefined;
}

function isHidden(cmd: Command): boolean {
  // commander keeps `hidden` private; help commands and hidden commands both set it.
  return (cmd as unknown as { _hidden?: boolean })._hidden === true || cmd.name() === 'help';
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** `value<TAB>description` lines, as zsh and fish show them (bash keeps the values). */
export function completionLines(candidates: readonly Candidate[]): string {
  return candidates.map((c) => (c.description ? `${c.value}\t${c.description}` : c.value)).join('\n') + (candidates.length > 0 ? '\n' : '');
}

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** The script that hooks `tack __complete` into `shell`. */
export function completionScript(shell: Shell): string {
  switch (shell) {
    case 'bash':
      return `# tack completion for bash. Load it in each shell:  eval "$(tack completion bash)"
_tack_complete() {
  local IFS=$'\\n' line
  COMPREPLY=()
  while read -r line; do
    [ -n "$line" ] && COMPREPLY+=("\${line%%$'\\t'*}")
  done < <(tack __complete "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
}
complete -o default -o nosort -F _tack_complete tack 2>/dev/null || complete -o default -F _tack_complete tack
`;
    case 'zsh':
      return `#compdef tack
# tack completion for zsh. Load it in each shell (after compinit):  eval "$(tack completion zsh)"
_tack() {
  local -a lines candidates
  local line
  lines=("\${(@f)$(tack __complete "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  for line in "\${lines[@]}"; do
    [[ -z $line ]] && continue
    if [[ $line == *$'\\t'* ]]; then
      candidates+=("\${\${line%%$'\\t'*}//:/\\\\:}:\${line#*$'\\t'}")
    else
      candidates+=("\${line//:/\\\\:}")
    fi
  done
  if (( \${#candidates} )); then
    _describe -V tack candidates
  else
    _files
  fi
}
compdef _tack tack
`;
    case 'fish':
      return `# tack completion for fish. Install it once:  tack completion fish > ~/.config/fish/completions/tack.fish
function __tack_complete
    set -l words (commandline -opc)
    set -l found (tack __complete $words[2..-1] (commandline -ct) 2>/dev/null)
    if test (count $found) -gt 0
        printf '%s\n' $found
    else
        __fish_complete_path (commandline -ct)
    end
end
complete -c tack -f -a '(__tack_complete)'
`;
  }
}
