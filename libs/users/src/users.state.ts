import { ReplicatedState, type ModuleState } from '@once/framework';

export interface UserRecord {
  readonly id: number;
  readonly username: string;
  /** scrypt salt and hash, hex. */
  salt: string;
  hash: string;
  readonly admin: boolean;
  disabled: boolean;
}

interface UsersSnapshot {
  nextId: number;
  users: UserRecord[];
}

/**
 * Users and their password hashes. User 1 (the genesis `admin`) is an
 * administrator; only administrators (and the node itself) create users.
 */
@ReplicatedState('users')
export class UsersState implements ModuleState {
  private nextId = 1;
  private readonly byId = new Map<number, UserRecord>();
  private readonly idByName = new Map<string, number>();

  get size(): number {
    return this.byId.size;
  }

  byUsername(username: string): UserRecord | undefined {
    const id = this.idByName.get(username);
    return id === undefined ? undefined : this.byId.get(id);
  }

  get(id: number): UserRecord | undefined {
    return this.byId.get(id);
  }

  /** Adds a user; the first one ever is the administrator. */
  add(username: string, salt: string, hash: string): UserRecord {
    const user: UserRecord = {
      id: this.nextId++,
      username,
      salt,
      hash,
      admin: this.byId.size === 0,
      disabled: false,
    };
    this.byId.set(user.id, user);
    this.idByName.set(username, user.id);
    return user;
  }

  toSnapshot(): UsersSnapshot {
    return { nextId: this.nextId, users: [...this.byId.values()].map((user) => ({ ...user })) };
  }

  fromSnapshot(snapshot: unknown): void {
    const { nextId, users } = snapshot as UsersSnapshot;
    this.nextId = nextId;
    this.byId.clear();
    this.idByName.clear();
    for (const user of users) {
      this.byId.set(user.id, { ...user });
      this.idByName.set(user.username, user.id);
    }
  }
}
