import type { OperationContract } from '../core/contract.js';
import type { ListedResponseSpec, RouteInfo } from '../core/route.js';
import type { OpenApiServer } from './types.js';

/** The body kinds and forms a route may document: a codec, typed resources, or a document kind. */
export type DocumentedBody = NonNullable<ListedResponseSpec['body']>;

/**
 * What the generator reads from a route: an `app.routes()` entry, or any part of one a team
 * describes by hand (only `method` and `pattern` are needed).
 */
export type DescribedRoute = Pick<RouteInfo, 'method' | 'pattern'> &
  Partial<
    Pick<
      RouteInfo,
      | 'summary'
      | 'description'
      | 'params'
      | 'query'
      | 'body'
      | 'responses'
      | 'auth'
      | 'bodyLimit'
      | 'produces'
      | 'profiles'
      | 'deprecated'
      | 'contracts'
    >
  >;

/** A License Object (OpenAPI 3.1, License Object): a name and the URL of its text. */
export interface OpenApiLicense {
  readonly name: string;
  readonly url?: string;
  /** An SPDX identifier (instead of `url`). */
  readonly identifier?: string;
}

export interface OpenApiOptions {
  readonly title: string;
  readonly version: string;
  readonly description?: string;
  /** The API's license (`info.license`), which linters expect of a published API. */
  readonly license?: OpenApiLicense;
  /** Server URLs (`[{ url: '/api' }]` when the app is mounted under a prefix). */
  readonly servers?: readonly OpenApiServer[];
  /** Contracts of application-wide middleware, merged into every operation. */
  readonly contracts?: readonly OperationContract[];
  /** The name of the bearer security scheme (default `bearer`). */
  readonly securityScheme?: string;
  /**
   * Descriptions of the tags (an operation's tag is its path's first resource segment: `books`).
   * A tag not listed is described as "Operations on <tag>.".
   */
  readonly tags?: Readonly<Record<string, string>>;
  /**
   * The OpenAPI version written (default `'3.1.0'`). A QUERY operation (RFC 10008) is the Path
   * Item's `query` field in 3.2.0, and `x-oai-additionalOperations: { QUERY }` in 3.1.0, the form
   * 3.1 tools read today; nothing else differs.
   */
  readonly openapi?: '3.1.0' | '3.2.0';
}
