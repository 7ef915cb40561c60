import { routeTarget } from 'rest-conventions/core';

/**
 * The routes other routes link to, each named once: its module declares it from here
 * (`defineRoute({ ...ORDER, ... })`) and links build its URLs from here (`targetUrl`, `linkTo`), so no
 * path is spelled twice (docs/core.md, "Declared links").
 */
export const BOOK = routeTarget('GET', '/books/{id}');
export const ORDERS = routeTarget('POST', '/orders');
export const ORDER = routeTarget('GET', '/orders/{id}');
export const ORDER_PAYMENTS = routeTarget('POST', '/orders/{id}/payments');
export const ORDER_PAYMENT = routeTarget('GET', '/orders/{id}/payments/{payment_id}');
