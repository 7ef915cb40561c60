export { type App, type AppOptions, createApp, jsonLineLogger } from '../app/app.js';
export { appendListHeader } from '../http/header-copy.js';
export {
  essence,
  JSON_API,
  JSON_MEDIA,
  negotiateErrorType,
  negotiateResponseType,
  PROBLEM_JSON,
  RESPONSE_MEDIA_TYPES,
} from '../http/media-types.js';
export { type EarlyResponse, earlyResponse, type MiddlewareHooks } from '../http/middleware-hooks.js';
export {
  decideRequestTarget,
  originForm,
  type TargetDecision,
  type TargetFacts,
} from '../http/request-target.js';
export * from '../http/types.js';
export { DEFAULT_BODY_LIMIT, readBody } from './body.js';
export { ACCEPTED_CONTENT_CODINGS, checkRequestCodings } from './codings.js';
export { compose, defineMiddleware, type ErrorRenderer } from './compose.js';
export { RequestContext } from './context.js';
export {
  CONTRACT,
  contractOf,
  contractsOf,
  describeLayer,
  type HeaderContract,
  type OperationContract,
  type StatusContract,
} from './contract.js';
export { type ExceptCondition, except } from './except.js';
export { httpDate } from './http-date.js';
export type { MaybePromise } from './maybe-promise.js';
export {
  appendFieldLine,
  appendListMember,
  bodyBytes,
  collectBody,
  created,
  json,
  noContent,
} from './response.js';
export {
  type LinkParameters,
  linkTo,
  type QueryValue,
  type ResponseLink,
  type ResponseValue,
} from './response-links.js';
export { RESPONSE_MEDIA_TYPE } from './response-media-type.js';
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
} from './route.js';
export {
  IRREGULAR_PLURALS,
  NAMING_RULE_IDS,
  type NamingRuleId,
  type NamingRuleMode,
  type NamingRules,
  type NamingWarning,
  OPERATION_WORDS,
  type ParamsOf,
  parsePattern,
  trimTrailingSlash,
} from './route-pattern.js';
export {
  type RouteTarget,
  routeTarget,
  type TargetValues,
  targetUrl,
} from './route-target.js';
export { type RouteEntry, type RouteMatch, Router, type RouterRoute } from './router.js';
