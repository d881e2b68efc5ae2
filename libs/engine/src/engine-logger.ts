import { type LogEvent } from './log-event';

/**
 * The few lines the engine logs. NestJS's `Logger` satisfies it; the engine
 * itself stays free of NestJS. The lines of the node's boot and stop come as
 * {@link LogEvent}s, which print as their text.
 */
export interface EngineLogger {
  log(message: string | LogEvent): void;
  warn(message: string): void;
  error(message: string): void;
}

export const SILENT_LOGGER: EngineLogger = {
  log: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** An error as the server log shows it: its stack (which starts with its message), or its text. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.stack ?? `${error.name}: ${error.message}`;
  try {
    return typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error));
  } catch {
    return String(error);
  }
}
