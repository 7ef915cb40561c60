export {
  collectIncluded,
  type DocumentOptions,
  dataDocument,
  relatedLink,
  resourceObject,
  selfLink,
  toMany,
  toOne,
} from './build.js';
export { decodeCursor, encodeCursor, pageLink } from './pagination.js';
export {
  type AttributeRule,
  defineResourceType,
  type ResourceType,
  type ResourceTypeOptions,
} from './resource-type.js';
export type * from './types.js';
