import http from 'node:http';
import { createApp, json } from 'rest-conventions';
import { toNodeHandler } from 'rest-conventions/adapters/node';
import { authenticate, hs256Verifier, requireAuth } from 'rest-conventions/auth';
import { dataDocument, defineResourceType } from 'rest-conventions/envelope';
import { ApiError } from 'rest-conventions/errors';
import { securityHeaders } from 'rest-conventions/security';
import { decodeJsonBody, strictObject, text } from 'rest-conventions/validation';

const notes = new Map<string, { id: string; body: string; owner: string }>();
const noteType = defineResourceType<{ id: string; body: string }, 'body'>({
  type: 'notes',
  id: (n) => n.id,
  attributes: ['body'],
  links: (n) => ({ self: `/notes/${n.id}` }),
});
const NoteInput = strictObject({ body: text({ maxLength: 500 }) });

const app = createApp({
  use: [securityHeaders(), authenticate({ verifier: hs256Verifier({ secret: process.env.AUTH_SECRET! }) })],
});
app.route({
  method: 'POST',
  path: '/notes',
  use: [requireAuth()],
  handler: async (ctx) => {
    const input = await decodeJsonBody(ctx, { codec: NoteInput, type: 'notes' }); // 400/413/415 for you
    const note = { id: crypto.randomUUID(), body: input.body, owner: ctx.principal!.sub };
    notes.set(note.id, note);
    return json(201, dataDocument(noteType.toResource(note)), { location: `/notes/${note.id}` });
  },
});
app.route({
  method: 'GET',
  path: '/notes/{id}',
  handler: (ctx) => {
    const note = notes.get(ctx.params.id); // ctx.params is typed from the path
    if (!note) throw new ApiError(404, { detail: 'No such note.' }); // an error document, or problem+json
    return json(200, dataDocument(noteType.toResource(note)));
  },
});
http.createServer(toNodeHandler(app)).listen(3000);
