import { CliError } from './kurate-client.js';

export interface PasswordSource {
  /** `--password-stdin`: the password is the whole of stdin, without its final line break. */
  fromStdin: boolean;
  /** What the prompt asks for, e.g. "Password for ada@example.org". */
  prompt: string;
}

/**
 * A new password: from stdin when asked to (`--password-stdin`), else typed at a terminal without echo (twice, so
 * that a typo does not lock the user out). A password is never taken from the command line, where `ps` and the shell
 * history would see it. Refuses when there is neither a `--password-stdin` nor a terminal to ask at.
 */
export async function readNewPassword(source: PasswordSource): Promise<string> {
  if (source.fromStdin) return passwordFromStdin();
  if (process.stdin.isTTY !== true) {
    throw new CliError(
      "No password: stdin is not a terminal to prompt at. Pipe the password in with --password-stdin (e.g. printf '%s\\n' \"$PASSWORD\" | kurate … --password-stdin).",
    );
  }
  const first = await promptHidden(`${source.prompt}: `);
  if (first === '') throw new CliError('No password entered.');
  const second = await promptHidden('Type it again: ');
  if (first !== second) throw new CliError('The two passwords differ; nothing was changed.');
  return first;
}

/**
 * An existing password (to log in): from stdin with `--password-stdin`, else typed once at a terminal without echo.
 */
export async function readPassword(source: PasswordSource): Promise<string> {
  if (source.fromStdin) return passwordFromStdin();
  if (process.stdin.isTTY !== true) {
    throw new CliError(
      "No password: stdin is not a terminal to prompt at. Pipe the password in with --password-stdin (e.g. printf '%s\\n' \"$PASSWORD\" | kurate login … --password-stdin).",
    );
  }
  const typed = await promptHidden(`${source.prompt}: `);
  if (typed === '') throw new CliError('No password entered.');
  return typed;
}

/** One line typed at the terminal, echoed (an email). The prompt goes to stderr. */
export async function promptLine(prompt: string): Promise<string> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return (await rl.question(prompt)).trim();
  } finally {
    rl.close();
  }
}

async function passwordFromStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  const text = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  if (text === '') throw new CliError("--password-stdin: stdin was empty. Pipe the password in, e.g. printf '%s\\n' \"$PASSWORD\" | kurate … --password-stdin.");
  if (/[\r\n]/.test(text)) throw new CliError('--password-stdin: stdin holds more than one line; send the password alone.');
  return text;
}

/** Reads one line from the terminal in raw mode, echoing nothing. The prompt goes to stderr, so stdout stays clean. */
function promptHidden(prompt: string): Promise<string> {
  const input = process.stdin;
  // Raw mode first: whatever is typed from the moment the prompt shows is not echoed.
  input.setRawMode(true);
  input.setEncoding('utf8');
  input.resume();
  process.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (error?: CliError) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      // A key that sends an escape sequence (arrows, function keys) arrives as one chunk: ignore it whole.
      if (chunk.startsWith('\u001b')) return;
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003') return finish(new CliError('Cancelled.'));
        if (char === '\u0004') return value === '' ? finish(new CliError('Cancelled.')) : finish();
        if (char === '\u007f' || char === '\b') value = Array.from(value).slice(0, -1).join('');
        else if (char === '\u0015') value = '';
        else if (char >= ' ') value += char;
      }
    };
    input.on('data', onData);
  });
}
