// The shape every command file exports.
export interface Command {
  name: string;
  /** The full help text, starting "usage: toolmask NAME". */
  usage: string;
  /** Runs with the arguments after the command's name; resolves to the exit code. */
  run(argv: string[]): Promise<number>;
  /** The command reads --help itself (serve parses its own flags). */
  ownHelp?: boolean;
}
