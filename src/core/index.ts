export { type App, type AppOptions, createApp, jsonLineLogger } from '../app/app.js';
export type { DeclareOptions } from '../app/declare-route.js';
export { appendListHeader } from '../http/header-copy.js';
export { JSON_API, JSON_MEDIA, PROBLEM_JSON } from '../http/media-types.js';
export { type EarlyResponse, earlyResponse, type MiddlewareHooks } from '../http/middleware-hooks.js';
export * from '../http/types.js';
export { DEFAULT_BODY_LIMIT, readBody } from './body.js';
export { defineMiddleware } from './compose.js';
export { type ExceptCondition, except } from './except.js';
export type { MaybePromise } from './maybe-promise.js';
export type { RequestIdOptions } from './request-identity.js';
export { appendFieldLine, appendListMember, created, json, noContent } from './response.js';
export {
  type LinkedRoute,
  type LinkParameters,
  linkTo,
  type QueryValue,
  type ResponseLink,
  type ResponseValue,
} from './response-links.js';
export {
  type AnyCodec,
  type AnySchema,
  type AuthVariables,
  type BodySpec,
  type DeclaredRouteDefinition,
  type DecodedParams,
  type DecodedQuery,
  type DocumentKind,
  defineRoute,
  type LayerContext,
  type LayersAdd,
  type ListedCodecs,
  type ListedResponseSpec,
  type OutputOf,
  type ParamCodecs,
  type QueryCodecs,
  type ResourceBody,
  type ResourceSchema,
  type ResponseSpec,
  type RouteAuth,
  type RouteContext,
  type RouteDefinition,
  type RouteDeprecation,
  type RouteInfo,
  type RouteRegistry,
} from './route.js';
export type {
  NamingRuleId,
  NamingRuleMode,
  NamingRules,
  NamingWarning,
  ParamsOf,
  PatternSegment,
} from './route-pattern.js';
export type { OutputOrText, SchemaCheck, SchemasOf } from './route-schemas.js';
export {
  type RouteTarget,
  routeTarget,
  type TargetValues,
  targetUrl,
} from './route-target.js';
