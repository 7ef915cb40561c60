/**
 * The OpenAPI format of an integer within `min..max` (OpenAPI 3.1 section 4.2, Data Types): `int32`
 * when the whole range fits a signed 32-bit integer, else `int64`. A client generator picks its
 * integer type from it, and tools checking for unbounded input (OWASP API4:2023) ask for it.
 */
export function integerFormat(min: number, max: number): 'int32' | 'int64' {
  return min >= -(2 ** 31) && max <= 2 ** 31 - 1 ? 'int32' : 'int64';
}
