import { readFile } from 'node:fs/promises';

/** The largest document the CLI reads (10 MiB): a description is never that big; a mistake may be. */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;
/** How long the CLI waits for a document fetched by URL. */
export const FETCH_TIMEOUT_MS = 10_000;

/** Read a JSON document from a file or an `http(s)` URL, bounded in size and time. */
export async function readJsonDocument(source: string): Promise<unknown> {
  const text = /^https?:\/\//i.test(source) ? await fetchText(source) : await readText(source);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${source} is not JSON (${(error as Error).message})`);
  }
}

async function readText(path: string): Promise<string> {
  const bytes = await readFile(path);
  if (bytes.byteLength > MAX_DOCUMENT_BYTES)
    throw new Error(`${path} is larger than ${MAX_DOCUMENT_BYTES} bytes`);
  return bytes.toString('utf8');
}

async function fetchText(url: string): Promise<string> {
  const response = await fetch(url, {
    headers: { accept: 'application/json, application/vnd.oai.openapi+json;q=0.9' },
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
  });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > MAX_DOCUMENT_BYTES) throw new Error(`${url} is larger than ${MAX_DOCUMENT_BYTES} bytes`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.byteLength > MAX_DOCUMENT_BYTES)
    throw new Error(`${url} is larger than ${MAX_DOCUMENT_BYTES} bytes`);
  return new TextDecoder().decode(bytes);
}
