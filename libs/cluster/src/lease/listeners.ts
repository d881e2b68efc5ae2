/**
 * The listeners of one kind of news, told in the order they subscribed. A
 * listener that throws is reported to `onError` and does not keep the news
 * from the others, nor from the component that announced it.
 */
export class Listeners<T> {
  private readonly listeners = new Set<(news: T) => void>();

  constructor(private readonly onError: (error: unknown) => void) {}

  /** Subscribes `listener`; returns the function that unsubscribes it. */
  add(listener: (news: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(news: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(news);
      } catch (error) {
        this.onError(error);
      }
    }
  }
}
