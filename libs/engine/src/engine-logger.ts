/**
 * The few lines the engine logs. NestJS's `Logger` satisfies it; the engine
 * itself stays free of NestJS.
 */
export interface EngineLogger {
  log(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export const SILENT_LOGGER: EngineLogger = {
  log: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
