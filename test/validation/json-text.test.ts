import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { RequestContext } from '../../src/core/context.js';
import { parseJsonText, peekJsonBody, takeJsonBody } from '../../src/validation/json-text.js';
import { recordingLogger } from '../core/send.js';
import { requestView } from '../support/request.js';

const encode = (text: string) => new TextEncoder().encode(text);

/** The model: what RFC 8259 JSON text in UTF-8 is, written the long way. */
function model(bytes: Uint8Array): { ok: true; value: unknown } | { ok: false; reason: string } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return { ok: false, reason: 'utf8' };
  }
  if (/^[ \t\n\r]*$/.test(text)) return { ok: false, reason: 'empty' };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, reason: 'syntax' };
  }
}

describe('parseJsonText', () => {
  it('reads JSON text', () => {
    expect(parseJsonText(encode(' {"a":[1,"é"]} '))).toEqual({ ok: true, value: { a: [1, 'é'] } });
  });

  it('refuses bytes that are not UTF-8 (RFC 8259 section 8.1)', () => {
    expect(parseJsonText(new Uint8Array([0x7b, 0xff, 0x7d]))).toMatchObject({ ok: false, reason: 'utf8' });
  });

  it('refuses a byte order mark, which JSON text must not start with (RFC 8259 section 8.1)', () => {
    expect(parseJsonText(encode('\ufeff{}'))).toMatchObject({ ok: false, reason: 'syntax' });
  });

  it('tells a blank body from malformed JSON', () => {
    expect(parseJsonText(encode(' \r\n\t'))).toMatchObject({ ok: false, reason: 'empty' });
    expect(parseJsonText(new Uint8Array(0))).toMatchObject({ ok: false, reason: 'empty' });
    // Only JSON's own whitespace (RFC 8259 section 2) is blank; a no-break space is malformed JSON.
    expect(parseJsonText(encode('\u00a0'))).toMatchObject({ ok: false, reason: 'syntax' });
    const malformed = parseJsonText(encode('{"a":'));
    expect(malformed).toMatchObject({ ok: false, reason: 'syntax' });
    expect(malformed.ok === false && malformed.message.length).toBeGreaterThan(0);
  });

  const bytes = fc.oneof(
    fc.json().map(encode),
    fc.string({ unit: 'binary' }).map(encode),
    fc.uint8Array({ maxLength: 40 }),
    fc.stringMatching(/^[ \t\n\r\u00a0\u2028\ufeff]{0,4}$/).map(encode),
    fc.json().map((text) => encode(`\ufeff${text}`)),
  );
  test.prop([bytes])('agrees with the model on any bytes', (input) => {
    const parsed = parseJsonText(input);
    const expected = model(input);
    expect(parsed.ok).toBe(expected.ok);
    if (parsed.ok && expected.ok) expect(parsed.value).toStrictEqual(expected.value);
    if (!parsed.ok && !expected.ok) expect(parsed.reason).toBe(expected.reason);
  });
});

describe('one parse of the request body for two readers', () => {
  const context = () => new RequestContext(requestView('POST', '/orders'), 'req-1', recordingLogger());

  it('hands the parse a layer peeked at to the decoder once, then parses afresh', () => {
    const ctx = context();
    const body = encode('{"a":1}');
    const peeked = peekJsonBody(ctx, body);
    expect(peekJsonBody(ctx, body)).toBe(peeked);
    expect(takeJsonBody(ctx, body)).toBe(peeked);
    // Taken: a second decode must not see a value the handler may have changed.
    const again = takeJsonBody(ctx, body);
    expect(again).not.toBe(peeked);
    expect(again).toEqual(peeked);
  });

  it('never hands out the parse of other bytes', () => {
    const ctx = context();
    peekJsonBody(ctx, encode('{"a":1}'));
    expect(takeJsonBody(ctx, encode('{"a":2}'))).toEqual({ ok: true, value: { a: 2 } });
  });
});
