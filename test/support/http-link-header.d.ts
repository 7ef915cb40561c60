// Minimal types for http-link-header (it ships none): the parts the tests use to read `Link` fields.
declare module 'http-link-header' {
  interface Reference {
    uri: string;
    rel: string;
    [attribute: string]: string;
  }
  class Link {
    constructor(value?: string);
    refs: Reference[];
    rel(value: string): Reference[];
    get(attribute: string, value: string): Reference[];
    has(attribute: string, value: string): boolean;
    static parse(value: string): Link;
  }
  export = Link;
}
