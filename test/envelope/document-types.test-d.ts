import { describe, expectTypeOf, it } from 'vitest';
import { dataDocument } from '../../src/envelope/build.js';
import type { DataDocument, MetaDocument, ResourceObject } from '../../src/envelope/types.js';
import type { ErrorDocument, ErrorObject } from '../../src/errors/error-document.js';

/** Any top-level document the library builds. */
type TopLevelDocument = DataDocument | MetaDocument | ErrorDocument;

const book: ResourceObject = { type: 'books', id: '1', attributes: { title: 'Dune' } };
const error: ErrorObject = { status: '404', code: 'not-found', title: 'Not Found', detail: 'No book.' };

// Compile-time checks, run by vitest's typecheck (and `npx tsc --noEmit`): a type error, or a
// `@ts-expect-error` below with no error to expect, fails the test.
describe('document types', () => {
  it('accept the legal shapes', () => {
    const documents: TopLevelDocument[] = [
      { data: book, included: [book] },
      { data: [book], links: { self: '/books' } },
      { data: null },
      { meta: { total: 0 } },
      { errors: [error] },
    ];
    expectTypeOf(documents).toEqualTypeOf<TopLevelDocument[]>();
    expectTypeOf(dataDocument(book)).toEqualTypeOf<DataDocument<ResourceObject>>();
  });

  it('keep data and errors apart', () => {
    // @ts-expect-error: data and errors are mutually exclusive
    const literal: TopLevelDocument = { data: book, errors: [error] };
    const built = { data: null, errors: [error] };
    // @ts-expect-error: also when the object is not a literal
    const variable: TopLevelDocument = built;
    // @ts-expect-error: a data document has no errors
    const dataOnly: DataDocument = { data: null, errors: [] };
    void [literal, variable, dataOnly];
  });

  it('allow included only beside data', () => {
    // @ts-expect-error: included needs data
    const withMeta: TopLevelDocument = { meta: {}, included: [book] };
    const withErrors = { errors: [error], included: [book] };
    // @ts-expect-error: an error document cannot include resources
    const errorsIncluded: TopLevelDocument = withErrors;
    // @ts-expect-error: included alone is no document
    const alone: TopLevelDocument = { included: [book] };
    void [withMeta, errorsIncluded, alone];
  });

  it('take only the options the builder knows', () => {
    // @ts-expect-error: dataDocument has no errors option
    dataDocument(book, { errors: [error] });
  });
});
