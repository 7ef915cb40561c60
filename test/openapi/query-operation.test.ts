import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { API_INFO } from '../../examples/reference-app/api-description/api-description-routes.js';
import { lintOpenApi } from '../../src/lint/index.js';
import { type OpenApiDocument, openApiDocument, pathItemOperations } from '../../src/openapi/index.js';
import { referenceApp } from '../support/reference-app.js';

const routes = () => referenceApp().app.routes();

describe('a QUERY operation in the document (RFC 10008)', () => {
  it('is x-oai-additionalOperations.QUERY in 3.1.0, self-contained, JSON content, Accept-Query, 400 and 415', () => {
    const document = openApiDocument(routes(), { ...API_INFO });
    expect(document.openapi).toBe('3.1.0');
    const item = document.paths!['/api/v1/standards']!;
    expect(item.query).toBeUndefined();
    const query = item['x-oai-additionalOperations']!.QUERY!;
    expect(Object.keys(query.requestBody!.content)).toEqual(['application/json']);
    expect(query.responses['200']!).toMatchObject({ headers: { 'Accept-Query': { required: true } } });
    expect(Object.keys(query.responses)).toEqual(expect.arrayContaining(['200', '304', '400', '415']));
    // What only the QUERY operation uses is written into it: a 3.1 tool skips the extension, and would
    // otherwise find components nothing it reads refers to.
    const text = JSON.stringify(query);
    for (const ref of text.match(/#\/components\/[^"]+/g) ?? []) {
      const [, kind, name] = ref.split('/').slice(1);
      expect(document.components?.[kind as 'schemas']?.[name!], ref).toBeDefined();
    }
    expect(document.components?.schemas?.StandardsQuery).toBeUndefined();
    expect(pathItemOperations(item).map(([method]) => method)).toEqual(['get', 'post', 'query']);
  });

  it('is the query field of a 3.2.0 document, which Redocly reads without a problem', async () => {
    const document = openApiDocument(routes(), { ...API_INFO, servers: [{ url: '/' }], openapi: '3.2.0' });
    expect(document.openapi).toBe('3.2.0');
    const item = document.paths!['/api/v1/standards']!;
    expect(item['x-oai-additionalOperations']).toBeUndefined();
    expect(item.query?.operationId).toBeDefined();
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({
      source: JSON.stringify(document),
      config,
      absoluteRef: 'openapi.json',
    });
    expect(problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message}`)).toEqual(
      [],
    );
    expect(lintOpenApi(document)).toEqual([]);
    expect(() => openApiDocument(routes(), { ...API_INFO, openapi: '3.0.3' as never })).toThrow(TypeError);
  });

  it('is checked by the linter in either form: body, Accept-Query, Cache-Control and 415', () => {
    for (const openapi of ['3.1.0', '3.2.0'] as const) {
      const document = openApiDocument(routes(), { ...API_INFO, openapi });
      expect(
        lintOpenApi(document).filter((f) => f.rule === 'query-method'),
        openapi,
      ).toEqual([]);
      const item = document.paths!['/api/v1/standards']!;
      const query = item.query ?? item['x-oai-additionalOperations']!.QUERY!;
      const { requestBody: _body, ...bare } = query;
      const { 415: _refused, ...responses } = bare.responses;
      const success = responses['200']!;
      const broken = { ...bare, responses: { ...responses, 200: { ...success, headers: {} } } };
      const paths = {
        ...document.paths,
        '/api/v1/standards':
          openapi === '3.2.0'
            ? { ...item, query: broken }
            : { ...item, 'x-oai-additionalOperations': { QUERY: broken } },
      };
      const findings = lintOpenApi({ ...document, paths } as OpenApiDocument).filter(
        (f) => f.rule === 'query-method',
      );
      expect(findings, openapi).toHaveLength(1);
      expect(findings[0]).toMatchObject({ method: 'QUERY', path: '/api/v1/standards' });
      expect(findings[0]!.message).toContain(
        'a request body with its media types, Accept-Query, Cache-Control, 415',
      );
    }
  });
});
