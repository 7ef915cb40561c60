import { describe, expect, it } from 'vitest';
import { type AppOptions, createApp } from '../../src/app/app.js';
import { noContent } from '../../src/core/response.js';
import { parsePattern } from '../../src/core/route-pattern.js';
import { requestView } from '../support/request.js';

const register = (path: string, options?: AppOptions) =>
  createApp(options).route({ method: 'GET', path, handler: () => noContent() });

describe('route naming rules', () => {
  describe('when a pattern puts an operation in the path', () => {
    it.each([
      ['/orders/{id}/delete', /"delete" names an operation/],
      ['/books/create', /names an operation \("create"\)/],
      ['/orders/{id}/cancel-request', /names an operation \("cancel"\)/],
    ])('refuses %s', (path, message) => {
      expect(() => register(path)).toThrow(TypeError);
      expect(() => register(path)).toThrow(message);
    });
  });

  describe('when a pattern carries a query or fragment', () => {
    it.each(['/orders?action=create', '/orders#create'])('refuses %s', (path) => {
      expect(() => register(path)).toThrow(TypeError);
      expect(() => register(path)).toThrow(/query or fragment/);
    });
  });

  describe('when a segment is not lower-case hyphenated words', () => {
    it.each(['/getBooks', '/accountType', '/account_types', '/Books', '/books/{id}/account--type'])(
      'refuses %s',
      (path) => {
        expect(() => register(path)).toThrow(TypeError);
        expect(() => register(path)).toThrow(/lower-case words separated by hyphens/);
      },
    );
  });

  describe('when a collection segment before a parameter is singular', () => {
    it('refuses /book/{id}, suggesting the plural', () => {
      expect(() => register('/book/{id}')).toThrow(TypeError);
      expect(() => register('/book/{id}')).toThrow(/"book" must be a plural noun \(e\.g\. "books"\)/);
    });
  });

  describe('when a pattern follows the conventions', () => {
    it.each([
      '/users/{id}/account-type',
      '/api/v1/standards',
      '/v2/users/{id}',
      '/books',
      '/books/{id}',
      '/users/{user_id}/orders/{order_id}',
      '/',
    ])('accepts %s', (path) => {
      expect(() => register(path)).not.toThrow();
    });
  });

  describe('when the rules are relaxed', () => {
    it('accepts a listed legacy segment', () => {
      expect(() => register('/person/{id}', { naming: { allowSegments: ['person'] } })).not.toThrow();
      expect(() => register('/person/{id}')).toThrow(TypeError);
    });

    it('accepts anything well-formed when enforcement is off', () => {
      expect(() => register('/getBooks', { naming: { enforce: false } })).not.toThrow();
    });

    it('still refuses a malformed pattern when enforcement is off', () => {
      for (const bad of ['books', '/books/{id', '/books/{}', '/books/{id}/{id}', '/a//b', '/x?y']) {
        expect(() => parsePattern(bad, { enforce: false }), bad).toThrow(TypeError);
      }
    });
  });
});

describe('each naming rule in its three modes', () => {
  const cases = [
    { rule: 'kebabCase', path: '/accountTypes', problem: /"accountTypes" must be lower-case words/ },
    { rule: 'noOperationWords', path: '/get-books', problem: /"get-books" names an operation \("get"\)/ },
    { rule: 'pluralCollections', path: '/hello/{name}', problem: /"hello" must be a plural noun/ },
  ] as const;

  const recording = () => {
    const warnings: { message: string; fields: Record<string, unknown> }[] = [];
    const errors: unknown[] = [];
    return {
      warnings,
      errors,
      logger: {
        warn: (fields: Record<string, unknown>, message: string) => warnings.push({ message, fields }),
        error: (...args: unknown[]) => errors.push(args),
      },
    };
  };

  it.each(cases)(
    '$rule: error by default, naming the rule and how to relax it',
    ({ rule, path, problem }) => {
      const { logger, warnings } = recording();
      expect(() => register(path, { logger })).toThrow(TypeError);
      expect(() => register(path, { logger })).toThrow(problem);
      expect(() => register(path, { logger })).toThrow(
        new RegExp(
          `naming rule "${rule}"; relax it with createApp\\(\\{ naming: \\{ ${rule}: 'warn' \\} \\}\\) or 'off'`,
        ),
      );
      expect(() => register(path, { logger, naming: { [rule]: 'error' } })).toThrow(problem);
      expect(warnings).toEqual([]);
    },
  );

  it.each(cases)(
    '$rule: warn registers the route and logs once, through the app logger',
    async ({ rule, path, problem }) => {
      const { logger, warnings } = recording();
      const app = register(path, { logger, naming: { [rule]: 'warn' } });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.message).toMatch(problem);
      expect(warnings[0]!.fields).toEqual({ rule, pattern: path });
      const response = await app.handle(requestView('GET', path.replace('{name}', 'ada')));
      expect(response.status).toBe(204);
      expect(warnings).toHaveLength(1);
    },
  );

  it.each(cases)('$rule: off registers the route silently; the other rules still apply', ({ rule, path }) => {
    const { logger, warnings } = recording();
    expect(() => register(path, { logger, naming: { [rule]: 'off' } })).not.toThrow();
    expect(warnings).toEqual([]);
    // Turning one rule off does not turn off the others.
    const other = cases.find((c) => c.rule !== rule)!;
    expect(() => register(other.path, { logger, naming: { [rule]: 'off' } })).toThrow(other.problem);
  });

  it('refuses an unknown mode at start-up, naming the option', () => {
    expect(() => createApp({ naming: { pluralCollections: 'warning' as never } })).toThrow(
      /naming\.pluralCollections must be 'error', 'warn' or 'off'/,
    );
  });
});
