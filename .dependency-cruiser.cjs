/**
 * The layers of `src/`, each importing only the layers below it (see docs/architecture.md, "Layers"):
 *
 *   http (the model) < errors < core, stores < the conventions < app < adapters < openapi, lint, testing, cli
 *
 * Telemetry sits beside the conventions: `observability` (what they decided, read from an answer) and
 * `opentelemetry` (the one subpath that imports `@opentelemetry/api`, an optional peer).
 *
 * A subpath's `index.ts` is public surface, not a layer member: `rest-conventions/core` still exports
 * `createApp` from `src/app`. Run with `npm run check:deps`.
 */
const CONVENTIONS =
  'auth|caching|cors|deprecation|envelope|idempotency|ownership|ratelimit|security|validation|versioning|observability|opentelemetry';
const TOOLS = 'openapi|lint|testing|cli';
const FRAMEWORKS = 'express|fastify|koa|hono|@hono|@koa|@fastify';
const BARREL = '^src/(index|core/index)[.]ts$';

/** A forbidden rule: modules under `from` may not import modules under `to`. */
function layer(name, comment, from, to) {
  return { name, comment, severity: 'error', from: { path: from, pathNot: BARREL }, to: { path: to } };
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A cycle makes two modules one: neither can be read, tested or moved alone.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    layer(
      'http-is-the-model',
      'src/http is the bottom: it imports no other layer.',
      '^src/http/',
      '^src/(?!http/)',
    ),
    layer(
      'errors-on-the-model',
      'src/errors builds on the http model only.',
      '^src/errors/',
      '^src/(?!http/|errors/)',
    ),
    layer(
      'core-below-conventions',
      'The core pipeline and store plumbing know nothing of conventions, the app, adapters or tools.',
      '^src/(core|stores)/',
      '^src/(?!http/|errors/|core/|stores/)',
    ),
    layer(
      'conventions-below-app',
      'A convention (auth, validation, caching...) never reaches up into the app, adapters or tools.',
      `^src/(${CONVENTIONS})/`,
      `^src/(app|adapters|${TOOLS})/`,
    ),
    layer(
      'app-below-adapters',
      'The app never imports an adapter or a tool.',
      '^src/app/',
      `^src/(adapters|${TOOLS})/`,
    ),
    layer(
      'stores-below-middleware',
      'A store (src/<convention>/stores/) takes plain values: it never sees a request (src/http), nor reaches up into its middleware or the pipeline.',
      '^src/(idempotency|ratelimit)/stores/',
      '^src/((http|core|app|adapters)/|(idempotency|ratelimit)/(middleware|options|claim-lifecycle)[.]ts$)',
    ),
    layer('adapters-below-tools', 'Adapters never import a tool.', '^src/adapters/', `^src/(${TOOLS})/`),
    {
      name: 'frameworks-only-in-adapters',
      comment: 'Only src/adapters imports a framework (an optional peer); elsewhere only its types.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/adapters/' },
      to: { path: `node_modules/(${FRAMEWORKS})/`, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'opentelemetry-only-in-its-subpath',
      comment:
        'Only src/opentelemetry imports @opentelemetry/api (an optional peer); the decisions it reports are read by src/observability, which imports none.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/opentelemetry/' },
      to: { path: 'node_modules/@opentelemetry/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-opentelemetry-sdk',
      comment: 'The library reports through the API only: the application chooses and registers an SDK.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: 'node_modules/@opentelemetry/(?!api/)' },
    },
    {
      name: 'src-is-self-contained',
      comment: 'The library never imports its examples, tests or benchmarks.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(examples|test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
