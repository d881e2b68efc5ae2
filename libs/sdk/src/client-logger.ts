/**
 * Where the client writes what it is waiting for. `console` fits, and so does
 * a NestJS `Logger`. Only `warn` is required; `log` (for "bound again after
 * waiting") falls back to `warn` when absent.
 */
export interface OnceClientLogger {
  warn(message: string): void;
  log?(message: string): void;
}
