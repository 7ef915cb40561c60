export { deprecation } from './middleware.js';
export {
  type MovedRedirect,
  type MovedUrl,
  type MovedUrlsOptions,
  type MovedUrlTable,
  movedUrls,
  movedUrlTable,
} from './moved-urls.js';
export { type DeprecationNotice, type DeprecationOptions, deprecationNotice } from './notice.js';
