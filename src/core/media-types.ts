/** Media types and their negotiation live in `src/http` (shared with `errors`); re-exported here. */
export * from '../http/media-types.js';
