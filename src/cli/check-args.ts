import { readFile } from 'node:fs/promises';
import type { CreateHint, KitProfile, PropertyId } from '../testing/kit.js';

/** What `rest-conventions check` was asked to do, from its flags and its config file. */
export interface CheckSettings {
  readonly base: string;
  readonly tokenA: string;
  readonly tokenB: string;
  readonly openapi?: string;
  readonly creates?: readonly CreateHint[];
  readonly only?: readonly PropertyId[];
  readonly skip?: readonly PropertyId[];
  readonly profile?: KitProfile;
  readonly relax?: readonly string[];
  readonly runs?: number;
  readonly seconds?: number;
  readonly seed?: number;
  readonly reporter: Reporter;
}

export type Reporter = 'text' | 'json' | 'junit';

/** Refused arguments: the message says which and why. */
export class UsageError extends Error {}

/** The flags that take a value; `create` and `update` may repeat (one `--update` per `--create`). */
const FLAGS = [
  'base',
  'token-a',
  'token-b',
  'openapi',
  'create',
  'update',
  'only',
  'skip',
  'profile',
  'relax',
  'runs',
  'seconds',
  'seed',
  'reporter',
  'config',
] as const;
type Flag = (typeof FLAGS)[number];

/** The largest config file read (1 MiB). */
const MAX_CONFIG_BYTES = 1024 * 1024;

type Values = Map<Flag, string[]>;

function parseFlags(args: readonly string[]): Values {
  const values: Values = new Map();
  for (let i = 0; i < args.length; i += 2) {
    const name = args[i]!.replace(/^--/, '') as Flag;
    const value = args[i + 1];
    if (!args[i]!.startsWith('--') || !FLAGS.includes(name))
      throw new UsageError(`unknown argument ${args[i]}`);
    if (value === undefined) throw new UsageError(`--${name} takes a value`);
    values.set(name, [...(values.get(name) ?? []), value]);
  }
  return values;
}

/** A config file: a JSON object whose members are the flags' names (`"token-a"`), with their values. */
async function readConfig(path: string): Promise<Values> {
  const bytes = await readFile(path).catch((error: Error) => {
    throw new UsageError(`--config ${path}: ${error.message}`);
  });
  if (bytes.byteLength > MAX_CONFIG_BYTES)
    throw new UsageError(`--config ${path}: larger than ${MAX_CONFIG_BYTES} bytes`);
  let config: unknown;
  try {
    config = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new UsageError(`--config ${path}: not JSON (${(error as Error).message})`);
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config))
    throw new UsageError(`--config ${path}: not a JSON object`);
  const values: Values = new Map();
  for (const [name, value] of Object.entries(config)) {
    if (!FLAGS.includes(name as Flag) || name === 'config')
      throw new UsageError(`--config ${path}: unknown member "${name}"`);
    const list = Array.isArray(value) ? value : [value];
    if (!list.every((v) => ['string', 'number'].includes(typeof v) || (typeof v === 'object' && v !== null)))
      throw new UsageError(`--config ${path}: "${name}" takes text, a number or a list`);
    values.set(
      name as Flag,
      list.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))),
    );
  }
  return values;
}

const list = (values: string[] | undefined) =>
  values
    ?.flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);

function numeric(name: Flag, values: Values, integer: (n: number) => boolean): number | undefined {
  const text = values.get(name)?.at(-1);
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === '' || !integer(n)) throw new UsageError(`--${name} takes a number, not "${text}"`);
  return n;
}

function creates(values: Values): CreateHint[] | undefined {
  const made = values.get('create');
  if (made === undefined) return undefined;
  const updates = values.get('update') ?? [];
  return made.map((text, i) => {
    const at = text.indexOf('=');
    try {
      if (at < 1) throw new Error('no path');
      const update = updates[i];
      return {
        path: text.slice(0, at),
        body: JSON.parse(text.slice(at + 1)),
        ...(update === undefined ? {} : { update: JSON.parse(update) }),
      };
    } catch {
      throw new UsageError('--create and --update take <path>=<json> and <json>');
    }
  });
}

/** The settings from `args`, over those of `--config <file>`: a flag given wins. */
export async function checkSettings(args: readonly string[]): Promise<CheckSettings> {
  const flags = parseFlags(args);
  const configPath = flags.get('config')?.at(-1);
  const values = configPath === undefined ? flags : new Map([...(await readConfig(configPath)), ...flags]);
  const one = (name: Flag) => values.get(name)?.at(-1);
  const base = one('base');
  const tokenA = one('token-a');
  const tokenB = one('token-b');
  if (base === undefined || tokenA === undefined || tokenB === undefined)
    throw new UsageError('--base, --token-a and --token-b are required');
  const reporter = one('reporter') ?? 'text';
  if (reporter !== 'text' && reporter !== 'json' && reporter !== 'junit')
    throw new UsageError(`--reporter is text, json or junit, not "${reporter}"`);
  const profile = one('profile');
  if (profile !== undefined && profile !== 'production' && profile !== 'development')
    throw new UsageError(`--profile is production or development, not "${profile}"`);
  const positive = (n: number) => Number.isInteger(n) && n > 0;
  const openapi = one('openapi');
  const made = creates(values);
  const only = list(values.get('only')) as PropertyId[] | undefined;
  const skip = list(values.get('skip')) as PropertyId[] | undefined;
  const relax = list(values.get('relax'));
  const runs = numeric('runs', values, positive);
  const seconds = numeric('seconds', values, positive);
  const seed = numeric('seed', values, Number.isSafeInteger);
  return {
    base,
    tokenA,
    tokenB,
    reporter,
    ...(openapi === undefined ? {} : { openapi }),
    ...(made === undefined ? {} : { creates: made }),
    ...(only === undefined ? {} : { only }),
    ...(skip === undefined ? {} : { skip }),
    ...(profile === undefined ? {} : { profile }),
    ...(relax === undefined ? {} : { relax }),
    ...(runs === undefined ? {} : { runs }),
    ...(seconds === undefined ? {} : { seconds }),
    ...(seed === undefined ? {} : { seed }),
  };
}
