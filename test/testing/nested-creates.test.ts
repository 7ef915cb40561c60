/**
 * A create under a nested path (`POST /projects/{project_id}/tasks`) is found in the document, and
 * the kit creates it under a parent it made first, with a fresh value in the member that must be
 * unique (`slug`, an anchored pattern): twice in a row, against one server.
 */
import { describe, expect, it } from 'vitest';
import { toFetchHandler } from '../../src/adapters/fetch.js';
import { checkConventions, discover, fetchTarget } from '../../src/testing/index.js';
import { projectsApp, projectsToken } from './fixtures/projects-app.js';

describe('the kit on an API with a nested collection', async () => {
  const { app, document } = projectsApp();
  const principals = { a: await projectsToken('ann'), b: await projectsToken('bob') };

  it('finds the nested create in the document, beside its parent', () => {
    expect(discover(document).creates.map((c) => c.path)).toEqual([
      '/projects',
      '/projects/{project_id}/tasks',
    ]);
  });

  it('creates under a parent it made, with fresh unique values, run after run', async () => {
    const target = fetchTarget(toFetchHandler(app));
    for (let run = 0; run < 2; run++) {
      const reports = await checkConventions({
        target,
        document,
        principals,
        only: ['idempotency', 'validators', 'idempotent-writes', 'ownership'],
        numRuns: 4,
      });
      const tasks = reports.filter((r) => r.name.includes('/projects/{project_id}/tasks'));
      expect(tasks.map((r) => r.id)).toEqual(['idempotency', 'validators', 'idempotent-writes', 'ownership']);
      expect(reports.filter((r) => !r.passed || r.skipped !== undefined)).toEqual([]);
    }
  }, 60_000);
});
