import type { Pool } from 'pg';
import { isStorableText } from 'rest-conventions/validation';
import { requestQueries } from '../database/request-scope.js';
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
  /** The request's transaction, or the pool. */
  private readonly db: ReturnType<typeof requestQueries>;
  private readonly byId;

  constructor(pool: Pool, prefix: string) {
    this.db = requestQueries(pool);
    this.byId = {
      name: `${prefix}_user_get`,
      text: `SELECT id, given_name, family_name, email, account_type, updated_at, password_hash
        FROM ${prefix}_users WHERE id = $1`,
    };
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
