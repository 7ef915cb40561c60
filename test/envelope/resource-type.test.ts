import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dataDocument } from '../../src/envelope/build.js';
import { defineResourceType } from '../../src/envelope/resource-type.js';
import type { Principal } from '../../src/http/types.js';
import { assertJsonApi } from '../support/schemas.js';

interface User {
  readonly id: number;
  readonly name: string;
  readonly email: string;
  readonly passwordHash: string;
}

const viewer = (sub: string): Principal => ({ sub, scopes: new Set(), claims: { sub } });

const users = defineResourceType<User, 'name' | 'email'>({
  type: 'users',
  id: (u) => u.id,
  attributes: ['name', 'email'],
  visibleTo: { email: (u, v) => v?.sub === String(u.id) },
  links: (u) => ({ self: `/users/${u.id}` }),
});

const alice: User = { id: 1, name: 'Alice', email: 'alice@example.test', passwordHash: '$argon2id$secret' };

describe('defineResourceType', () => {
  describe('when a record has fields outside the allow-list', () => {
    it('never renders them', () => {
      const resource = users.toResource(alice, viewer('1'));
      expect(resource).toEqual({
        type: 'users',
        id: '1',
        attributes: { name: 'Alice', email: 'alice@example.test' },
        links: { self: '/users/1' },
      });
      expect(JSON.stringify(resource)).not.toContain('argon2id');
    });

    it('never renders fields added to the stored record later (property)', () => {
      const reserved = new Set(['name', 'email']);
      const extraFields = fc.dictionary(
        fc.string({ minLength: 1 }).filter((k) => !reserved.has(k) && k !== 'id'),
        fc.string({ minLength: 1 }).map((s) => `INTERNAL-${s}`),
        { minKeys: 1 },
      );
      fc.assert(
        fc.property(extraFields, fc.option(fc.string(), { nil: undefined }), (extra, sub) => {
          const record = Object.assign({}, alice, extra);
          const resource = users.toResource(record, sub === undefined ? undefined : viewer(sub));
          for (const name of Object.keys(resource.attributes ?? {})) expect(reserved.has(name)).toBe(true);
          const serialized = JSON.stringify(dataDocument(resource));
          expect(serialized).not.toContain('INTERNAL-');
          assertJsonApi(JSON.parse(serialized));
        }),
      );
    });
  });

  describe('when an attribute has a per-viewer rule', () => {
    it('shows it to the viewers the rule admits', () => {
      expect(users.toResource(alice, viewer('1')).attributes).toHaveProperty('email');
    });

    it('hides it from others and from anonymous callers', () => {
      expect(users.toResource(alice, viewer('2')).attributes).toEqual({ name: 'Alice' });
      expect(users.toResource(alice).attributes).toEqual({ name: 'Alice' });
    });
  });

  describe('when sparse fieldsets are asked for', () => {
    it('renders only the requested allowed fields, and never an unlisted one', () => {
      expect(users.toResource(alice, viewer('1'), new Set(['email'])).attributes).toEqual({
        email: 'alice@example.test',
      });
      expect(users.toResource(alice, viewer('1'), new Set(['passwordHash'])).attributes).toEqual({});
    });
  });

  it('renders the id as a string and identifies records', () => {
    expect(users.identify(alice)).toEqual({ type: 'users', id: '1' });
    expect(typeof users.toResource(alice).id).toBe('string');
  });

  describe('when the definition is wrong', () => {
    it('refuses a visibility rule for an attribute that is not listed', () => {
      expect(() =>
        defineResourceType<User, 'name'>({
          type: 'users',
          id: (u) => u.id,
          attributes: ['name'],
          visibleTo: { email: () => true } as never,
        }),
      ).toThrow(/"email", which is not an attribute/);
    });

    it('refuses attributes named id or type, which JSON:API forbids', () => {
      const record = { id: 1, type: 'x', name: 'n' };
      expect(() =>
        defineResourceType<typeof record, 'id' | 'name'>({
          type: 'things',
          id: (r) => r.id,
          attributes: ['id', 'name'],
        }),
      ).toThrow(TypeError);
      expect(() =>
        defineResourceType<typeof record, 'type'>({ type: 'things', id: (r) => r.id, attributes: ['type'] }),
      ).toThrow(TypeError);
    });
  });
});
