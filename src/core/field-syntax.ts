/** The HTTP field syntax helpers live in `src/http` (shared with `errors`); re-exported here. */
export * from '../http/field-syntax.js';
