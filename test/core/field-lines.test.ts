import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { toFetchHandler } from '../../src/adapters/fetch.js';
import { toNodeHandler } from '../../src/adapters/node.js';
import { createApp } from '../../src/app/app.js';
import { appendFieldLine, json } from '../../src/core/response.js';

function cookieApp() {
  return createApp().route({
    method: 'GET',
    path: '/sessions',
    handler: () => {
      const response = json(200, { data: [] }, { 'set-cookie': 'a=1; Path=/; HttpOnly' });
      appendFieldLine(response, 'Set-Cookie', 'b=2, with a comma; Path=/');
      return response;
    },
  });
}

describe('multi-valued response fields (RFC 9110 section 5.3)', () => {
  describe('when a response carries two Set-Cookie lines', () => {
    it('sends two field lines through the node adapter, each value intact', async () => {
      const server = http.createServer(toNodeHandler(cookieApp()));
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      try {
        const { port } = server.address() as AddressInfo;
        const response = await fetch(`http://127.0.0.1:${port}/sessions`);
        expect(response.status).toBe(200);
        expect(response.headers.getSetCookie()).toEqual([
          'a=1; Path=/; HttpOnly',
          'b=2, with a comma; Path=/',
        ]);
        await response.arrayBuffer();
      } finally {
        server.close();
      }
    });

    it('sends two field lines through the fetch adapter', async () => {
      const response = await toFetchHandler(cookieApp())(new Request('http://localhost/sessions'));
      expect(response.headers.getSetCookie()).toEqual(['a=1; Path=/; HttpOnly', 'b=2, with a comma; Path=/']);
    });
  });

  it('leaves single-valued headers in headers, with no field lines', async () => {
    const response = await createApp()
      .route({ method: 'GET', path: '/books', handler: () => json(200, { data: [] }) })
      .handle((await import('../support/request.js')).requestView('GET', '/books'));
    expect(response.fieldLines).toBeUndefined();
  });
});
