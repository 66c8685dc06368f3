// The shape every command file exports.
export interface Command {
  name: string;
  /** One line for `toolmask help`. */
  summary: string;
  /** The full help text, starting "usage: toolmask NAME". */
  usage: string;
  /** Runs with the arguments after the command's name; resolves to the exit code. */
  run(argv: string[]): Promise<number>;
}
