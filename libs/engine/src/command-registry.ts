import { type CommandHandler } from './command-handler';

/** Raised at startup when two handlers claim the same pattern. */
export class DuplicatePatternError extends Error {
  readonly code = 'DUPLICATE_PATTERN';
  constructor(readonly pattern: string) {
    super(`two command handlers are registered for pattern "${pattern}"`);
  }
}

/** Raised at startup when a pattern is both handled and declared retired. */
export class RetiredPatternHandledError extends Error {
  readonly code = 'RETIRED_PATTERN_HANDLED';
  constructor(readonly pattern: string) {
    super(`the command "${pattern}" is declared retired but a handler still provides it`);
  }
}

/**
 * Pattern → command handler. Filled once at startup, then read-only: replay
 * resolves patterns against the same registry the live commits used.
 */
export class CommandRegistry {
  private readonly handlers = new Map<string, CommandHandler>();
  /** Patterns retired on purpose: their old entries change nothing and answer COMMAND_RETIRED. */
  readonly retired: ReadonlySet<string>;

  constructor(
    handlers: Iterable<CommandHandler> = [],
    options: { retired?: Iterable<string> } = {},
  ) {
    this.retired = new Set(options.retired ?? []);
    for (const handler of handlers) this.register(handler);
  }

  register(handler: CommandHandler): void {
    if (this.handlers.has(handler.pattern)) throw new DuplicatePatternError(handler.pattern);
    if (this.retired.has(handler.pattern)) throw new RetiredPatternHandledError(handler.pattern);
    this.handlers.set(handler.pattern, handler);
  }

  get(pattern: string): CommandHandler | undefined {
    return this.handlers.get(pattern);
  }

  /** Pattern → the state its handler belongs to, for the handlers that belong to one. */
  owners(): Map<string, string> {
    const owners = new Map<string, string>();
    for (const [pattern, handler] of this.handlers) {
      if (handler.state !== undefined) owners.set(pattern, handler.state);
    }
    return owners;
  }

  get patterns(): string[] {
    return [...this.handlers.keys()].sort();
  }
}
