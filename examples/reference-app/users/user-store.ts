/** A user as stored. */
export interface User {
  readonly id: string;
  readonly givenName: string;
  readonly familyName: string;
  readonly email: string;
  readonly accountType: 'standard' | 'premium';
  readonly updatedAt: Date;
  /** Internal: must never appear in a response. */
  readonly passwordHash: string;
}

export interface UserStore {
  get(id: string): Promise<User | undefined>;
}

/** The embedded users: 1 and 2. */
export const DEFAULT_USERS: readonly User[] = [
  {
    id: '1',
    givenName: 'Ada',
    familyName: 'Lovelace',
    email: 'ada@example.com',
    accountType: 'premium' as const,
  },
  {
    id: '2',
    givenName: 'Alan',
    familyName: 'Turing',
    email: 'alan@example.com',
    accountType: 'standard' as const,
  },
].map((user) => ({
  ...user,
  updatedAt: new Date('2026-02-01T12:00:00Z'),
  passwordHash: `$argon2id$v=19$seed-${user.id}`,
}));

/** The embedded default store, holding {@link DEFAULT_USERS} unless given other users. */
export class MemoryUserStore implements UserStore {
  private readonly users: ReadonlyMap<string, User>;

  constructor(users: Iterable<User> = DEFAULT_USERS) {
    this.users = new Map([...users].map((user) => [user.id, user]));
  }

  async get(id: string): Promise<User | undefined> {
    return this.users.get(id);
  }
}
