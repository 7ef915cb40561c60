/**
 * The caching error factories' names before every error factory was named `<condition>Error`
 * (`preconditionFailedError`, `missingKeyError`, ...). Each alias is the renamed function itself, kept
 * on this subpath for one release and then removed.
 */
import { preconditionFailedError, preconditionRequiredError } from './errors.js';

/** @deprecated Renamed `preconditionFailedError`; this alias is removed in the next release. */
export const preconditionFailed = preconditionFailedError;
/** @deprecated Renamed `preconditionRequiredError`; this alias is removed in the next release. */
export const preconditionRequired = preconditionRequiredError;
