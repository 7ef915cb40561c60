import type { Context, ContextKey, Logger, Params, Principal, RequestView } from './types.js';

const EMPTY_PARAMS: Params = Object.freeze({});

/** The concrete per-request context. One allocation per request; query parsed only when read. */
export class RequestContext implements Context {
  params: Params = EMPTY_PARAMS;
  principal: Principal | undefined = undefined;
  routePattern: string | undefined = undefined;
  private parsedQuery: URLSearchParams | undefined = undefined;
  private queryObject: Readonly<Record<string, string>> | undefined = undefined;
  private state: Map<ContextKey<unknown>, unknown> | undefined = undefined;

  constructor(
    readonly request: RequestView,
    readonly requestId: string,
    readonly logger: Logger,
  ) {}

  get query(): Readonly<Record<string, string>> {
    if (this.queryObject === undefined) {
      const object: Record<string, string> = Object.create(null);
      for (const [name, value] of this.searchParams()) object[name] = value;
      this.queryObject = object;
    }
    return this.queryObject;
  }

  queryAll(name: string): string[] {
    return this.searchParams().getAll(name);
  }

  get<T>(key: ContextKey<T>): T | undefined {
    return this.state?.get(key) as T | undefined;
  }

  set<T>(key: ContextKey<T>, value: T): void {
    if (this.state === undefined) this.state = new Map();
    this.state.set(key, value);
  }

  private searchParams(): URLSearchParams {
    if (this.parsedQuery === undefined) this.parsedQuery = new URLSearchParams(this.request.search);
    return this.parsedQuery;
  }
}
