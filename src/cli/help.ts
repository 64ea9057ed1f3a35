import type { Command } from 'commander';

/** Adds an "Examples:" section to a command's --help. */
export function withExamples(command: Command, ...examples: string[]): Command {
  return command.addHelpText('after', `\nExample${examples.length > 1 ? 's' : ''}:\n${examples.map((e) => `  $ ${e}`).join('\n')}`);
}
