#!/usr/bin/env node
import { LINT_USAGE, lintCommand } from './lint-command.js';

const USAGE = `Usage: rest-conventions <command> [options]

Commands:
  lint <file-or-URL>   check an OpenAPI document against the conventions (docs/lint.md)
  check --base <URL>   run the convention properties against a running API (docs/testing.md)

${LINT_USAGE}

See docs/testing.md for check's options.`;

const [command, ...args] = process.argv.slice(2);
const print = (line: string) => process.stdout.write(`${line}\n`);
const commands: Record<string, (args: readonly string[], out: (line: string) => void) => Promise<number>> = {
  lint: lintCommand,
  // Loaded on demand: the kit needs the optional peers fast-check and ajv; lint does not.
  check: async (args, out) => (await import('./check-command.js')).checkCommand(args, out),
};
const run = command === undefined ? undefined : commands[command];
if (run === undefined) {
  print(USAGE);
  process.exitCode = command === undefined || command === '--help' || command === '-h' ? 0 : 2;
} else {
  run(args, print).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`rest-conventions ${command}: ${(error as Error).message}\n`);
      process.exitCode = 2;
    },
  );
}
