/** A user as stored. */
export interface User {
  readonly id: string;
  readonly name: string;
  readonly email: string;
  readonly accountType: 'standard' | 'premium';
  readonly updatedAt: Date;
  /** Internal: must never appear in a response. */
  readonly passwordHash: string;
}

export interface UserStore {
  get(id: string): Promise<User | undefined>;
}

/** The embedded default: users 1 and 2. */
export class MemoryUserStore implements UserStore {
  private readonly users = new Map<string, User>(
    [
      { id: '1', name: 'Ada Lovelace', email: 'ada@example.com', accountType: 'premium' as const },
      { id: '2', name: 'Alan Turing', email: 'alan@example.com', accountType: 'standard' as const },
    ].map((user) => [
      user.id,
      {
        ...user,
        updatedAt: new Date('2026-02-01T12:00:00Z'),
        passwordHash: `$argon2id$v=19$seed-${user.id}`,
      },
    ]),
  );

  async get(id: string): Promise<User | undefined> {
    return this.users.get(id);
  }
}
