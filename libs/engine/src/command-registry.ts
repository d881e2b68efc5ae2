import { type CommandHandler } from './command-handler';

/** Raised at startup when two handlers claim the same pattern. */
export class DuplicatePatternError extends Error {
  readonly code = 'DUPLICATE_PATTERN';
  constructor(readonly pattern: string) {
    super(`two command handlers are registered for pattern "${pattern}"`);
  }
}

/**
 * Pattern → command handler. Filled once at startup, then read-only: replay
 * resolves patterns against the same registry the live commits used.
 */
export class CommandRegistry {
  private readonly handlers = new Map<string, CommandHandler>();

  constructor(handlers: Iterable<CommandHandler> = []) {
    for (const handler of handlers) this.register(handler);
  }

  register(handler: CommandHandler): void {
    if (this.handlers.has(handler.pattern)) throw new DuplicatePatternError(handler.pattern);
    this.handlers.set(handler.pattern, handler);
  }

  get(pattern: string): CommandHandler | undefined {
    return this.handlers.get(pattern);
  }

  get patterns(): string[] {
    return [...this.handlers.keys()].sort();
  }
}
