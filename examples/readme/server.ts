import * as rc from 'rest-conventions';
import { createNodeServer } from 'rest-conventions/adapters/node';

type Note = { id: string; body: string; owner: string };
const notes = new Map<string, Note>();
const noteType = rc.defineResourceType({ type: 'notes', id: (n: Note) => n.id, attributes: ['body'] });
const NoteInput = rc.strictObject({ body: rc.text({ maxLength: 500 }) });
const verifier = rc.hs256Verifier({ secret: process.env.AUTH_SECRET ?? '' }); // TypeError at start if unset
const app = rc.createApp({ use: [rc.securityHeaders(), rc.authenticate({ verifier })] });
app.route({
  method: 'POST',
  path: '/notes',
  auth: 'principal', // 401 without a valid bearer token
  body: { codec: NoteInput, type: 'notes' }, // decoded into ctx.body; 400, 413, 415 for you
  handler: (ctx) => {
    const note = { id: crypto.randomUUID(), body: ctx.body.body, owner: ctx.var.principal.sub };
    notes.set(note.id, note);
    return rc.created(`/notes/${note.id}`, rc.dataDocument(noteType.toResource(note)));
  },
});
app.route({
  method: 'GET',
  path: '/notes/{id}',
  handler: (ctx) => {
    const note = notes.get(ctx.params.id); // ctx.params is typed from the path
    if (!note) throw new rc.ApiError(404, { detail: 'No such note.' }); // error document or problem+json
    return rc.json(200, rc.dataDocument(noteType.toResource(note)));
  },
});
// Header, request and idle timeouts and a connection cap (docs/security.md).
createNodeServer(app).listen(Number(process.env.PORT ?? 3000));
