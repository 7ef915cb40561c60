/** The neutral request/response model now lives in `src/http` (shared with `errors`); re-exported here. */
export * from '../http/types.js';
