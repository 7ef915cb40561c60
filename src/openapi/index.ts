/**
 * rest-conventions/openapi: an OpenAPI 3.1 document from declared routes, the contracts middleware
 * add to it, and an offline API reference page.
 */
export {
  CONTRACT,
  contractOf,
  contractsOf,
  describeLayer,
  type HeaderContract,
  type OperationContract,
  type StatusContract,
} from './contribution.js';
export { DOCS_PAGE_CSP, type DocsPage, type DocsPageOptions, docsPage } from './docs-page.js';
export {
  type DescribedRoute,
  type DocumentedBody,
  type OpenApiLicense,
  type OpenApiOptions,
  openApiDocument,
} from './document.js';
export { resolveRef } from './refs.js';
export type * from './types.js';
export { OPENAPI_METHODS, pathItemOperations } from './types.js';
