import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parseEntityTag, parseEntityTagList, weakMatch } from '../caching/entity-tag.js';
import type { ApiResponse } from '../http/types.js';

/** Options for {@link docsPage}. */
export interface DocsPageOptions {
  /** Where the page fetches the OpenAPI document from (same origin), e.g. `/openapi.json`. */
  readonly specUrl: string;
  /**
   * The page's public path; its assets are served under it (default `/docs`). Links in the page are
   * absolute, so include any prefix the app is mounted under (`/api/docs`).
   */
  readonly path?: string;
  /** The page title (default `API reference`). */
  readonly title?: string;
  /**
   * The folder of the `swagger-ui-dist` package (default: resolved from `node_modules`). The page
   * loads nothing from any other origin, so it works offline.
   */
  readonly assetsDir?: string;
}

/** An interactive API reference page, served from memory. */
export interface DocsPage {
  /** The page's path (`/docs`). */
  readonly path: string;
  /** The asset names served under `path` (`swagger-ui.css`, ...), for routing `GET {path}/{asset}`. */
  readonly assets: readonly string[];
  /**
   * The page (`asset` undefined) or one of its assets, with `ETag`, `Cache-Control` and the page's own
   * Content-Security-Policy; `304` when `ifNoneMatch` names the current tag; `undefined` for an
   * unknown asset.
   */
  respond(asset: string | undefined, ifNoneMatch?: string): ApiResponse | undefined;
}

/**
 * The page's Content-Security-Policy (CSP Level 3). The API's own `default-src 'none'` would blank it;
 * this one still loads nothing from another origin and runs no inline script: scripts, styles, images
 * and the document itself come from this server only (`data:` images are Swagger UI's icons).
 */
export const DOCS_PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

interface Asset {
  readonly bytes: Uint8Array;
  readonly type: string;
  readonly etag: string;
}

/**
 * Build an API reference page rendered by Swagger UI (`swagger-ui-dist`, an optional peer
 * dependency) from an OpenAPI document the same server serves. Files are read once, here, at start-up;
 * every response afterwards comes from memory.
 *
 * @example
 * const docs = docsPage({ specUrl: '/openapi.json' });
 * app.route({ method: 'GET', path: '/docs', handler: (ctx) => docs.respond(undefined, ctx.request.headers.get('if-none-match'))! });
 */
export function docsPage(options: DocsPageOptions): DocsPage {
  const { specUrl } = options;
  if (typeof specUrl !== 'string' || !specUrl.startsWith('/')) {
    throw new TypeError('docsPage: specUrl must be a same-origin path such as "/openapi.json"');
  }
  const path = options.path ?? '/docs';
  if (!/^\/[a-z0-9/-]*[a-z0-9]$/.test(path))
    throw new TypeError(`docsPage: path must be a plain path, got ${path}`);
  const title = escapeHtml(options.title ?? 'API reference');
  const dir = options.assetsDir ?? swaggerUiDir();
  const assets = new Map<string, Asset>();
  for (const [name, type] of Object.entries(ASSETS)) {
    assets.set(name, asset(new Uint8Array(readFileSync(join(dir, name))), type));
  }
  assets.set(
    'init.js',
    asset(
      Buffer.from(
        `window.addEventListener('load', function () {\n  window.ui = SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: '#reference', deepLinking: true });\n});\n`,
      ),
      'text/javascript; charset=utf-8',
    ),
  );
  const page = asset(
    Buffer.from(
      `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${title}</title>\n<link rel="icon" type="image/png" href="${path}/favicon-32x32.png">\n<link rel="stylesheet" href="${path}/swagger-ui.css">\n</head>\n<body>\n<div id="reference"></div>\n<script src="${path}/swagger-ui-bundle.js"></script>\n<script src="${path}/init.js"></script>\n</body>\n</html>\n`,
    ),
    'text/html; charset=utf-8',
  );
  return {
    path,
    assets: [...assets.keys()],
    respond(name, ifNoneMatch) {
      const found = name === undefined ? page : assets.get(name);
      if (found === undefined) return undefined;
      const headers: Record<string, string> = {
        etag: found.etag,
        // The page revalidates (it names the document); the assets change only with the package.
        'cache-control': name === undefined ? 'public, no-cache' : 'public, max-age=86400',
        'content-security-policy': DOCS_PAGE_CSP,
      };
      if (ifNoneMatch !== undefined && matches(ifNoneMatch, found.etag)) return { status: 304, headers };
      headers['content-type'] = found.type;
      return { status: 200, headers, raw: found.bytes };
    },
  };
}

function asset(bytes: Uint8Array, type: string): Asset {
  const digest = createHash('sha256').update(bytes).digest('base64url').slice(0, 27);
  return { bytes, type, etag: `"${digest}"` };
}

/** Weak comparison, as `If-None-Match` uses (RFC 9110 section 13.1.2), with the caching module's parser. */
function matches(ifNoneMatch: string, etag: string): boolean {
  const list = parseEntityTagList(ifNoneMatch);
  if (list === '*') return true;
  const own = parseEntityTag(etag);
  return own !== undefined && list.some((tag) => weakMatch(tag, own));
}

function swaggerUiDir(): string {
  try {
    return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  } catch {
    throw new TypeError(
      'docsPage: install the optional peer dependency "swagger-ui-dist" (or pass assetsDir)',
    );
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
