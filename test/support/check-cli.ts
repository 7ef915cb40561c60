import { expect } from 'vitest';
import { checkCommand } from '../../src/cli/check-command.js';
import { READ_SCOPE, rawToken } from './reference-kit.js';

/** `rest-conventions check` in process (its argument parsing, discovery and report): exit status and output. */
export async function runCheck(args: readonly string[]): Promise<{ code: number; output: string }> {
  const lines: string[] = [];
  const code = await checkCommand(args, (line) => lines.push(line));
  return { code, output: lines.join('\n') };
}

/**
 * The three flags a team gives: the base URL and the development tokens of `a` and `b`, with the
 * scope the reference app's standards need to be read (else `QUERY /api/v1/standards` is not checked).
 */
export async function basicArgs(base: string, a = '1', b = '2', scope = READ_SCOPE): Promise<string[]> {
  return ['--base', base, '--token-a', await rawToken(a, scope), '--token-b', await rawToken(b, scope)];
}

/**
 * `rest-conventions check` as a team runs it first, given only the base URL and two tokens (of
 * development users `a` and `b`): no property fails, and the keyed-write, validator and ownership
 * properties pass rather than being left unchecked.
 */
export async function expectCheckPasses(base: string, a: string, b: string): Promise<void> {
  const { code, output } = await runCheck([...(await basicArgs(base, a, b)), '--runs', '4']);
  expect(output).not.toMatch(/^FAIL/m);
  for (const id of ['idempotency', 'validators', 'ownership'])
    expect(output).toMatch(new RegExp(`^pass {2}${id}: `, 'm'));
  expect(code).toBe(0);
}
