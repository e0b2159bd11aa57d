import type { CliIo } from './cli-io';

/**
 * Asks a question at the terminal: the prompt on standard error (standard output may be a file),
 * the answer one line of standard input as the terminal echoes and edits it. Null when the input
 * ends before anything was typed (Ctrl-D). Standard input is paused afterwards, so that the process can end.
 */
export function askLine(io: CliIo, prompt: string): Promise<string | null> {
  const { stdin, stderr } = io;
  stderr.write(prompt);
  stdin.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let typed = '';
    const finish = (answer: string | null) => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('error', onError);
      stdin.pause();
      resolve(answer);
    };
    const onData = (chunk: string) => {
      typed += chunk;
      const end = typed.indexOf('\n');
      if (end >= 0) finish(typed.slice(0, end).replace(/\r$/, ''));
    };
    // Input ended (Ctrl-D) without a line break: what was typed is the answer, and the terminal
    // has not moved to a new line, so the next message starts one.
    const onEnd = () => {
      stderr.write('\n');
      finish(typed === '' ? null : typed);
    };
    const onError = (error: Error) => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      reject(error);
    };
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.on('error', onError);
    stdin.resume();
  });
}
