// Errors the CLI reports: a code, one line of message, an optional suggestion, and the exit code
// bin/ uses (0 ok, 1 failure, 2 usage, 3 daemon unreachable, 4 not signed in).
export const EXIT = { OK: 0, FAILURE: 1, USAGE: 2, UNREACHABLE: 3, NOT_SIGNED_IN: 4 } as const;

export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: number = EXIT.FAILURE,
    readonly suggestion?: string,
    readonly details?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "CliError";
  }
}

/** A command that printed its answer and only sets the exit code (`verify`: 1 broken, 2 unreadable). */
export class ExitCode extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
    this.name = "ExitCode";
  }
}

export const usageError = (message: string, suggestion?: string) => new CliError("USAGE", message, EXIT.USAGE, suggestion);
