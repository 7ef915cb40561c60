import { checkCommand } from '../../src/cli/check-command.js';

/** `rest-conventions check` in process (its argument parsing, discovery and report): exit status and output. */
export async function runCheck(args: readonly string[]): Promise<{ code: number; output: string }> {
  const lines: string[] = [];
  const code = await checkCommand(args, (line) => lines.push(line));
  return { code, output: lines.join('\n') };
}
