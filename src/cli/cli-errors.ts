/** A failure the CLI reports as one line on stderr and a non-zero exit code. */
export class CliError extends Error {}

/** The server answered with an error status; `message` is the server's own explanation. */
export class ServerError extends CliError {
  constructor(
    readonly status: number,
    message: string,
    /** The server's error code (`not_found`, `last_admin`, …) when it sent one. */
    readonly code?: string,
  ) {
    super(message);
  }
}
