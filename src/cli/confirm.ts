import { createInterface } from 'node:readline';

/**
 * Asks `question` (`Delete card ENG-42?`) on a terminal and answers whether the person typed
 * y or yes; Enter, anything else, Ctrl-C or Ctrl-D is no. Without a terminal on stdin (a
 * script, a pipe, an agent) nothing is asked and the answer is yes, as with `--yes`: a script
 * never hangs on a prompt it cannot see.
 */
export function confirmOnTerminal(question: string, input: NodeJS.ReadStream = process.stdin): Promise<boolean> {
  if (!input.isTTY) return Promise.resolve(true);
  return new Promise((resolve) => {
    const prompt = createInterface({ input, output: process.stderr });
    let answered = false;
    const answer = (yes: boolean) => {
      if (answered) return;
      answered = true;
      prompt.close();
      // A terminal's stdin would keep the process alive after the request: nothing reads it now.
      input.pause();
      input.unref();
      resolve(yes);
    };
    prompt.on('SIGINT', () => {
      process.stderr.write('\n');
      answer(false);
    });
    prompt.on('close', () => answer(false));
    prompt.question(`${question} [y/N] `, (text) => answer(/^\s*y(es)?\s*$/i.test(text)));
  });
}
