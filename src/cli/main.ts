#!/usr/bin/env node
import { LINT_USAGE, lintCommand } from './lint-command.js';

const USAGE = `Usage: rest-conventions <command> [options]

Commands:
  lint <file-or-URL>   check an OpenAPI document against the conventions (docs/lint.md)
  check --base <URL>   run the convention properties against a running API (docs/testing.md)

${LINT_USAGE}

See docs/testing.md for check's options.`;

/** The package a failed import could not find (an optional peer: fast-check, ajv), if that is what failed. */
function missingPackage(error: unknown): string | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return undefined;
  return /Cannot find (?:package|module) '((?:@[^/']+\/)?[^/']+)/.exec(String(message))?.[1];
}

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
      const peer = missingPackage(error);
      process.stderr.write(
        peer === undefined
          ? `rest-conventions ${command}: ${(error as Error).message}\n`
          : `rest-conventions ${command}: needs the optional peer dependency ${peer}: npm install --save-dev ${peer}\n`,
      );
      process.exitCode = 2;
    },
  );
}
