import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../src/core/deep-freeze.js';
import {
  functionOption,
  optionError,
  positiveInteger,
  positiveNumber,
  realmOption,
  shownValue,
} from '../../src/errors/option-checks.js';

// Every refusal of an option reads `owner: "option" must be <what>, got <value>`.
const FORM = /^[\w .]+: "[\w.[\]]+" must be .+, got .+$/;

describe('option checks: one message form', () => {
  it('writes owner, option, what it must be and what was given', () => {
    expect(optionError('rateLimit', 'timeoutMs', 'a positive number', -1).message).toBe(
      'rateLimit: "timeoutMs" must be a positive number, got -1',
    );
    expect(shownValue('x')).toBe('"x"');
    expect(shownValue(undefined)).toBe('undefined');
    expect(shownValue(() => 1)).toBe('a function');
    expect(shownValue([1])).toBe('an array');
    expect(shownValue({ a: 1 })).toBe('a object');
  });

  test.prop([fc.oneof(fc.double(), fc.integer(), fc.constant(Number.NaN), fc.string())], { seed: 40 })(
    'positiveNumber takes a finite number above 0, and refuses anything else in the one form',
    (value) => {
      const valid = typeof value === 'number' && Number.isFinite(value) && value > 0;
      if (valid) expect(positiveNumber('o', 'n', value as number, 1)).toBe(value);
      else {
        expect(() => positiveNumber('o', 'n', value as number, 1)).toThrow(TypeError);
        expect(() => positiveNumber('o', 'n', value as number, 1)).toThrow(FORM);
      }
    },
  );

  test.prop([fc.oneof(fc.double(), fc.integer({ min: -5, max: 5 }), fc.constant(2 ** 53))], { seed: 40 })(
    'positiveInteger takes a safe integer of at least min, and refuses anything else in the one form',
    (value) => {
      for (const min of [0, 1]) {
        const valid = Number.isSafeInteger(value) && value >= min;
        if (valid) expect(positiveInteger('o', 'n', value, 1, min)).toBe(value);
        else expect(() => positiveInteger('o', 'n', value, 1, min)).toThrow(FORM);
      }
    },
  );

  it('takes the fallback where the option is left out', () => {
    expect(positiveNumber('o', 'n', undefined, 5)).toBe(5);
    expect(positiveInteger('o', 'n', undefined, 7)).toBe(7);
    expect(realmOption('o', undefined)).toBe('api');
  });

  it('functionOption names what the callback is for', () => {
    const f = () => 1;
    expect(functionOption('o', 'now', f)).toBe(f);
    expect(() => functionOption('memoryRateLimitStore', 'now', 5)).toThrow(
      new TypeError('memoryRateLimitStore: "now" must be a function, got 5'),
    );
  });

  test.prop([fc.string({ unit: 'binary', minLength: 1, maxLength: 20 })], { seed: 40 })(
    'realmOption takes exactly what a quoted-string holds without " or \\ (RFC 9110 section 5.6.4)',
    (realm) => {
      const model = [...realm].every((char) => {
        const code = char.codePointAt(0)!;
        return code >= 0x20 && code <= 0x7e && char !== '"' && char !== '\\';
      });
      if (model) expect(realmOption('o', realm)).toBe(realm);
      else expect(() => realmOption('o', realm)).toThrow(FORM);
    },
  );

  it('the factories refuse their options in that form', async () => {
    const { rateLimit } = await import('../../src/ratelimit/middleware.js');
    const { authenticate } = await import('../../src/auth/middleware.js');
    const { ownedResource } = await import('../../src/ownership/owned-resource.js');
    const { memoryIdempotencyStore } = await import('../../src/idempotency/stores/memory/store.js');
    const policies = [{ name: 'p', quota: 1, windowSeconds: 1 }];
    expect(() => rateLimit({ policies, timeoutMs: 0 })).toThrow(FORM);
    expect(() => authenticate({ verifier: { verify: async () => ({}) as never }, realm: 'a"b' })).toThrow(
      FORM,
    );
    expect(() => ownedResource({ noun: 'order', load: 5 as never, ownerOf: () => '' })).toThrow(FORM);
    expect(() => memoryIdempotencyStore({ now: 5 as never })).toThrow(FORM);
  });
});

describe('deepFreeze', () => {
  it('freezes every object reachable, cycles included, and leaves alone what it is told to', () => {
    const kept = { mutable: true };
    const value: Record<string, unknown> = { a: { b: [1, { c: 2 }] }, kept };
    value.self = value;
    deepFreeze(value, (object) => object === kept);
    expect(Object.isFrozen(value)).toBe(true);
    expect(Object.isFrozen((value.a as { b: unknown[] }).b[1])).toBe(true);
    expect(Object.isFrozen(kept)).toBe(false);
  });
});
