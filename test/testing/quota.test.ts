/**
 * A 429 is the API's own quota: the kit waits out a short `Retry-After` and sends the request again,
 * and reports any other 429 as the environment (`QuotaRefused`), never as a broken convention.
 */
import { describe, expect, it } from 'vitest';
import { QuotaRefused } from '../../src/testing/failure.js';
import { MAX_QUOTA_WAIT_SECONDS, respectingQuotas, retryAfterSeconds } from '../../src/testing/quota.js';
import type { TargetRequest, TargetResponse } from '../../src/testing/target.js';

const REQUEST: TargetRequest = { method: 'POST', path: '/orders' };
const answer = (status: number, headers: Record<string, string> = {}, text = ''): TargetResponse => ({
  status,
  headers,
  text,
});

/** A target that answers from a script, in order, and counts what it was sent. */
function scripted(...answers: TargetResponse[]) {
  const sent: TargetRequest[] = [];
  return {
    sent,
    send: async (request: TargetRequest) => {
      sent.push(request);
      return answers[Math.min(sent.length - 1, answers.length - 1)]!;
    },
  };
}

describe('a 429 the kit can wait out', () => {
  it('is waited out and the request sent again, until it is answered', async () => {
    const target = scripted(
      answer(429, { 'retry-after': '0' }),
      answer(429, { 'retry-after': '0' }),
      answer(201),
    );
    const response = await respectingQuotas(target.send, undefined)(REQUEST);
    expect(response.status).toBe(201);
    expect(target.sent).toEqual([REQUEST, REQUEST, REQUEST]);
  });

  it('waits the seconds asked for before sending again', async () => {
    const target = scripted(answer(429, { 'retry-after': '1' }), answer(200));
    const sentAt: number[] = [];
    const send = async (request: TargetRequest) => {
      sentAt.push(Date.now());
      return target.send(request);
    };
    expect((await respectingQuotas(send, undefined)(REQUEST)).status).toBe(200);
    // Waited at least what the server asked (a lower bound: no assertion on how much longer).
    expect(sentAt[1]! - sentAt[0]!).toBeGreaterThanOrEqual(990);
  });
});

describe('a 429 the kit cannot wait out is the environment', () => {
  it.each([
    [
      'a Retry-After longer than the kit waits',
      { 'retry-after': String(MAX_QUOTA_WAIT_SECONDS + 1) },
      /Retry-After: 11 s/,
    ],
    ['no Retry-After', {}, /without a Retry-After/],
    [
      'an HTTP-date a day ahead',
      { 'retry-after': new Date(Date.now() + 86_400_000).toUTCString() },
      /Retry-After: 86[34]\d\d s/,
    ],
  ])('%s: QuotaRefused naming the quota, the request and the response', async (_, headers, why) => {
    const body = JSON.stringify({ errors: [{ status: '429', code: 'idempotency-quota-exceeded' }] });
    const target = scripted(answer(429, headers, body));
    const refusal = await respectingQuotas(target.send, 'http://api.test')(REQUEST).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(QuotaRefused);
    const message = (refusal as Error).message;
    expect(message).toMatch(
      /^not checked: the API's own quota refused the kit \(429 idempotency-quota-exceeded\)/,
    );
    expect(message).toMatch(why);
    expect(message).toContain("curl -i -X POST 'http://api.test/orders'");
    expect(target.sent).toHaveLength(1);
  });

  it('and so is a quota still spent after the kit waited out several Retry-After', async () => {
    const target = scripted(answer(429, { 'retry-after': '0' }));
    const refusal = await respectingQuotas(target.send, undefined)(REQUEST).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(QuotaRefused);
    expect((refusal as Error).message).toMatch(/6 times in a row/);
  });
});

describe('Retry-After (RFC 9110 section 10.2.3)', () => {
  it('reads delay-seconds and an HTTP-date; anything else is no answer', () => {
    const now = Date.parse('Sun, 06 Nov 1994 08:49:37 GMT');
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds('Sun, 06 Nov 1994 08:50:37 GMT', now)).toBe(60);
    expect(retryAfterSeconds('Sun, 06 Nov 1994 08:49:00 GMT', now)).toBe(0);
    for (const bad of [undefined, '', '-1', '1.5', 'soon', '2024-01-01'])
      expect(retryAfterSeconds(bad, now)).toBeUndefined();
  });
});
