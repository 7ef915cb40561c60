/**
 * The rest-conventions context of each Express request inside `conventions(...)`, and a neutral
 * response written through Express's response (which `conventions` catches for the primitives).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request } from 'express';
import { bodyBytes } from '../../core/response.js';
import type { ApiResponse, Context } from '../../http/types.js';
import { replaceHeaders } from '../node-host.js';

export const CONTEXTS = new WeakMap<IncomingMessage, Context>();

/**
 * The rest-conventions context of a request that went through `conventions`: its `var`
 * (what its layers added: `var.principal` after `authenticate`), `requestId`, and what primitives such as `decodeJsonBody` need.
 */
export function conventionsContext(req: Request): Context | undefined {
  return CONTEXTS.get(req);
}

/** Writes a neutral response as the whole answer: its status, its headers only, its bytes. */
export function sendResponse(res: ServerResponse, response: ApiResponse): void {
  replaceHeaders(res, response, []);
  res.statusCode = response.status;
  res.end(bodyBytes(response));
}
