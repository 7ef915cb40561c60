import type {
  Context,
  ContextKey,
  Inputs,
  LayerVariables,
  Logger,
  RequestView,
  RouteFacts,
} from '../http/types.js';
import { type ParsedQuery, parseQuery } from './query-string.js';

const EMPTY_PARAMS: Inputs = Object.freeze({});

/** The concrete per-request context. One allocation per request; query parsed only when read. */
export class RequestContext implements Context {
  params: Inputs = EMPTY_PARAMS;
  routePattern: string | undefined = undefined;
  route: RouteFacts | undefined = undefined;
  body: unknown = undefined;
  /** The query a declared route's codecs decoded, once they have (see `query`). */
  private decodedQuery: Inputs | undefined = undefined;
  private parsedQuery: URLSearchParams | undefined = undefined;
  private parsedQueryString: ParsedQuery | undefined = undefined;
  /**
   * Per-request state as `[key, value, key, value, ...]`: a request holds a handful of entries, so a
   * scan by identity is cheaper than hashing into a Map (and allocates one array, not a table).
   */
  private state: unknown[] | undefined = undefined;
  /** `var`, made when a layer first touches it: a request no layer adds to allocates none. */
  private variables: LayerVariables | undefined = undefined;

  constructor(
    readonly request: RequestView,
    readonly requestId: string,
    readonly logger: Logger,
  ) {}

  get var(): LayerVariables {
    if (this.variables === undefined) this.variables = {};
    return this.variables;
  }

  /** The raw query (each name's last value), parsed when first read, until a route decodes it. */
  get query(): Inputs {
    return this.decodedQuery ?? this.parsed().last;
  }

  set query(decoded: Inputs) {
    this.decodedQuery = decoded;
  }

  queryAll(name: string): string[] {
    const { last, repeated } = this.parsed();
    if (repeated?.has(name)) return this.searchParams().getAll(name);
    const value = last[name];
    return value === undefined ? [] : [value];
  }

  get<T>(key: ContextKey<T>): T | undefined {
    const { state } = this;
    if (state === undefined) return undefined;
    for (let i = 0; i < state.length; i += 2) if (state[i] === key) return state[i + 1] as T;
    return undefined;
  }

  set<T>(key: ContextKey<T>, value: T): void {
    const { state } = this;
    if (state === undefined) {
      this.state = [key, value];
      return;
    }
    for (let i = 0; i < state.length; i += 2) {
      if (state[i] === key) {
        state[i + 1] = value;
        return;
      }
    }
    state.push(key, value);
  }

  private parsed(): ParsedQuery {
    if (this.parsedQueryString === undefined) this.parsedQueryString = parseQuery(this.request.search);
    return this.parsedQueryString;
  }

  private searchParams(): URLSearchParams {
    if (this.parsedQuery === undefined) this.parsedQuery = new URLSearchParams(this.request.search);
    return this.parsedQuery;
  }
}
