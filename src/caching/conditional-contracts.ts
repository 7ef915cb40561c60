import type { OperationContract } from '../core/contract.js';

// What `conditional` declares for the OpenAPI document and the conventions kit.

const TAG = {
  description: 'The entity tag of the representation (RFC 9110 section 8.8.3).',
  schema: { type: 'string' },
};

const LAST_MODIFIED = { description: 'When the representation last changed (RFC 9110 section 8.8.2).' };
const CACHE_CONTROL = { description: 'Who may cache it, and for how long (RFC 9111 section 5.2).' };

const STALE = {
  412: { description: 'Precondition Failed: the resource changed since the tag in If-Match.' },
};
const REQUIRED = { 428: { description: 'Precondition Required: send If-Match (RFC 6585 section 3).' } };

/** What `conditional` adds to a route: validators and 304 on reads, 412 (and 428) on writes. */
export function conditionalContracts(
  validated: boolean,
  requireIfMatch: boolean,
  cached: boolean,
): OperationContract[] {
  return [
    {
      // Every response this layer passes gets its Vary (and, with a policy, its Cache-Control).
      allHeaders: {
        Vary: { description: 'What it varies on (RFC 9110 section 12.5.5).' },
        ...(cached ? { 'Cache-Control': CACHE_CONTROL } : {}),
      },
    },
    {
      // QUERY too: its results are its selected representation (RFC 10008 section 2.6).
      methods: ['GET', 'HEAD', 'QUERY'],
      requestHeaders: {
        'If-None-Match': {
          description: 'Entity tags the client holds: 304 when one is current (RFC 9110 section 13.1.2).',
        },
        'If-Modified-Since': {
          description: 'An HTTP date: 304 when not modified since (RFC 9110 section 13.1.3).',
        },
      },
      responses: {
        304: {
          description: 'Not Modified: the representation the client holds is current.',
          body: false,
          headers: { ETag: TAG, 'Last-Modified': LAST_MODIFIED },
        },
      },
      successHeaders: {
        ETag: { ...TAG, required: true },
        'Last-Modified': LAST_MODIFIED,
        ...(cached ? { 'Cache-Control': { ...CACHE_CONTROL, required: true } } : {}),
      },
    },
    ...(validated
      ? [
          {
            methods: ['PUT', 'PATCH', 'DELETE', 'POST'],
            requestHeaders: {
              'If-Match': {
                description: 'The entity tag the change is based on (RFC 9110 section 13.1.1).',
                ...(requireIfMatch ? { required: true } : {}),
              },
            },
            responses: requireIfMatch ? { ...STALE, ...REQUIRED } : STALE,
          },
        ]
      : []),
  ];
}
