export {
  collectIncluded,
  type DocumentOptions,
  dataDocument,
  type LinkContext,
  relatedLink,
  resourceObject,
  selfLink,
  toMany,
  toOne,
} from './build.js';
export { decodeCursor, encodeCursor, pageLink } from './pagination.js';
export {
  type CursorPage,
  type CursorPaginator,
  type CursorPosition,
  cursorPaginator,
  MAX_CURSOR_LENGTH,
  MAX_PAGE_SIZE_LIMIT,
  type OffsetPage,
  type OffsetPageNumbers,
  type OffsetPaginator,
  offsetPageNumbers,
  offsetPaginator,
} from './paginators.js';
export {
  type AttributeRule,
  defineResourceType,
  type ResourceType,
  type ResourceTypeOptions,
} from './resource-type.js';
export type * from './types.js';
