// What a command throws to end with a message: the dispatcher prints it as one line (plus the
// command's usage for a usage error) and exits with the code, never with a stack trace.

/** Bad input the user can fix (missing file, bad JSON, unknown dialect): exit 1. */
export class CliError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 1) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCode;
  }
}

/** The command line itself is wrong (unknown flag, bad value): exit 2, usage shown. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 2);
    this.name = "UsageError";
  }
}
