import type { ServerResponse } from 'node:http';

/** Last resort when writing a response itself failed: a bare 500, or just close a half-sent one. */
export function writeFallback500(res: ServerResponse): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body =
    '{"errors":[{"status":"500","code":"internal-server-error","title":"Internal Server Error","detail":"Internal Server Error"}]}';
  res.writeHead(500, { 'content-type': 'application/vnd.api+json', 'cache-control': 'no-store' });
  res.end(body);
}
