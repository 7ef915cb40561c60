import type { Pool } from 'pg';
import { transactionOrPool } from 'rest-conventions/idempotency';
import { isStorableText } from 'rest-conventions/validation';
import type { RequestScope } from '../database/request-scope.js';
import type { User, UserStore } from './user-store.js';

interface UserRow {
  readonly id: string;
  readonly given_name: string;
  readonly family_name: string;
  readonly email: string;
  readonly account_type: User['accountType'];
  readonly updated_at: Date;
  readonly password_hash: string;
}

/** Users in `<prefix>_users` (created and seeded by `database/migrations.ts`). */
export class PostgresUserStore implements UserStore {
  private readonly byId;

  constructor(
    private readonly pool: Pool,
    prefix: string,
  ) {
    this.byId = {
      name: `${prefix}_user_get`,
      text: `SELECT id, given_name, family_name, email, account_type, updated_at, password_hash
        FROM ${prefix}_users WHERE id = $1`,
    };
  }

  /** The request's transaction, or the pool (a connection not free in time: 503, never 500). */
  private db(request?: RequestScope) {
    return transactionOrPool(request, this.pool);
  }

  async get(id: string): Promise<User | undefined> {
    // A path segment may decode to U+0000, which PostgreSQL's text refuses: no user has that id.
    if (!isStorableText(id)) return undefined;
    const row = (await this.db().query<UserRow>({ ...this.byId, values: [id] })).rows[0];
    if (row === undefined) return undefined;
    return {
      id: row.id,
      givenName: row.given_name,
      familyName: row.family_name,
      email: row.email,
      accountType: row.account_type,
      updatedAt: row.updated_at,
      passwordHash: row.password_hash,
    };
  }
}
