/**
 * Subscribers to one kind of event, called in subscription order.
 *
 * Copy-on-write, so (un)subscribing from inside a listener is safe. A
 * throwing listener is a bug in its owner: it must neither break the caller
 * (the append pipeline would stall) nor be swallowed, so it surfaces as an
 * uncaught exception, outside the caller.
 */
export class ListenerList<T> {
  #listeners: ReadonlyArray<(value: T) => void> = [];

  /** Subscribes `listener`; returns the unsubscribe function. */
  add(listener: (value: T) => void): () => void {
    this.#listeners = [...this.#listeners, listener];
    return () => {
      this.#listeners = this.#listeners.filter((l) => l !== listener);
    };
  }

  /** Calls every listener with `value`. */
  emit(value: T): void {
    for (const listener of this.#listeners) {
      try {
        listener(value);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }
}
