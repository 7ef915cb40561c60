import fc from 'fast-check';
import { hostileQuery } from '../convention-arbitraries.js';
import type { TargetRequest } from '../target.js';
import type { PropertyFactory } from './property.js';

/** A path template with every parameter `1`. */
const fill = (template: string) => template.replace(/\{[^}]+\}/g, '1');

/**
 * A moved URL answers 301 or 308 (RFC 9110 sections 15.4.2 and 15.4.9) with a `Location` to its new
 * place (the one given, or a path the document has), the query kept.
 */
export const movedProperty: PropertyFactory = (ctx) => {
  if (ctx.moved.length === 0) return [];
  return [
    {
      id: 'moved',
      name: 'moved URLs redirect to their new place, keeping the query',
      check: () =>
        ctx.run(fc.tuple(fc.constantFrom(...ctx.moved), hostileQuery()), async ([{ from, to }, query]) => {
          const request: TargetRequest = {
            method: 'GET',
            path: fill(from),
            query,
            headers: ctx.bearer(ctx.principals.a),
          };
          const response = await ctx.send(request);
          if (response.status !== 308 && response.status !== 301)
            ctx.fail(`a moved URL answered ${response.status}`, request, response);
          const location = new URL(response.headers.location ?? '', 'http://x');
          // The same query, whatever the percent-encoding of its characters.
          const same = new URLSearchParams(query).toString() === location.searchParams.toString();
          const place =
            to === undefined
              ? ctx.match('GET', location.pathname) !== undefined
              : location.pathname === fill(to);
          if (!place || !same) {
            const where = to === undefined ? 'a documented path' : fill(to);
            ctx.fail(`the redirect does not lead to ${where}?${query}`, request, response);
          }
        }),
    },
  ];
};
