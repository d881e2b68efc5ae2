import { type ClientId } from '@once/protocol';
import { type SessionBinding } from '@once/framework';

/** A connection as the binding registry sees it. */
export interface Bindable {
  binding: SessionBinding | undefined;
}

/**
 * Which connections are bound to which session.
 *
 * Per client id there is at most one **holder**: the connection that bound it
 * last (REGISTER committed on it, or it resumed with a token). A REGISTER on
 * another connection fences the old holder without unbinding it: the fenced
 * connection stays bound to its old epoch, so its next request is answered
 * SESSION_TOO_LOW, and it is still told when the session ends.
 */
export class SessionBindings<C extends Bindable> {
  private readonly holders = new Map<ClientId, C>();
  private readonly bound = new Map<ClientId, Set<C>>();

  holder(client: ClientId): C | undefined {
    return this.holders.get(client);
  }

  /** Every connection bound to `client`, whatever its epoch. */
  boundTo(client: ClientId): C[] {
    return [...(this.bound.get(client) ?? [])];
  }

  /** Binds `connection` and makes it the holder; a previous holder stays bound (fenced). */
  bind(connection: C, binding: SessionBinding): void {
    if (connection.binding) this.unbind(connection);
    connection.binding = binding;
    let set = this.bound.get(binding.client);
    if (!set) this.bound.set(binding.client, (set = new Set()));
    set.add(connection);
    this.holders.set(binding.client, connection);
  }

  /** Unbinds `connection`; returns the binding it had and whether it was the holder. */
  unbind(connection: C): { binding: SessionBinding | undefined; wasHolder: boolean } {
    const binding = connection.binding;
    if (!binding) return { binding: undefined, wasHolder: false };
    connection.binding = undefined;
    const set = this.bound.get(binding.client);
    set?.delete(connection);
    if (set?.size === 0) this.bound.delete(binding.client);
    const wasHolder = this.holders.get(binding.client) === connection;
    if (wasHolder) this.holders.delete(binding.client);
    return { binding, wasHolder };
  }
}
