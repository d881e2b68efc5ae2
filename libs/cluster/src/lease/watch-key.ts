import { type KV, type KvEntry } from '@nats-io/kv';
import { Pause } from './pause';

/** What a watch reports. */
export interface KeyWatchHandlers {
  /** A write, delete or purge of a watched key (first the current values, then each change). */
  entry(entry: KvEntry): void;
  /** The watch could not start or ended; it starts again after `retryMs`. */
  failure(error: unknown): void;
}

/**
 * Watches `key` (a key or a wildcard such as `node.>`) of `kv` until the
 * returned function is called, starting the watch again whenever it fails or
 * ends (a lost connection ends it). A restarted watch delivers the current
 * values first, so nothing written meanwhile is missed for good; it says
 * nothing of values that expired meanwhile, nor ever of expiries at all.
 */
export function watchKey(
  kv: KV,
  key: string,
  retryMs: number,
  handlers: KeyWatchHandlers,
): () => void {
  const pause = new Pause();
  let running = true;
  let stopCurrent: (() => void) | undefined;
  void (async () => {
    while (running) {
      try {
        const watch = await kv.watch({ key });
        stopCurrent = () => watch.stop();
        if (!running) watch.stop();
        for await (const entry of watch) handlers.entry(entry);
        if (running) handlers.failure(new Error(`the watch of ${key} ended`));
      } catch (error) {
        if (running) handlers.failure(error);
      }
      stopCurrent = undefined;
      if (running) await pause.for(retryMs);
    }
  })();
  return () => {
    running = false;
    stopCurrent?.();
    pause.wake();
  };
}
