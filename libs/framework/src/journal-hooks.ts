import { type JournalStoreOptions } from '@once/journal/internal';
import { type OnceModuleOptions } from './once-module-options.interface';

/**
 * The key of the journal's low-level options (fault injection, a clock) on
 * the object given to `OnceModule.forRoot`. A symbol, off the public
 * `OnceModuleOptions` type, so a team's options never offer test hooks: a
 * test sets them with `withJournalHooks` of `@once/testing`.
 */
export const JOURNAL_HOOKS: unique symbol = Symbol.for('@once/framework.journalHooks');

/** `OnceModuleOptions` carrying the journal's test hooks under {@link JOURNAL_HOOKS}. */
export type OnceModuleHookedOptions = OnceModuleOptions & {
  readonly [JOURNAL_HOOKS]?: JournalStoreOptions;
};

/** The journal's test hooks set on `options`, if any. */
export function journalHooksOf(options: OnceModuleOptions): JournalStoreOptions | undefined {
  return (options as OnceModuleHookedOptions)[JOURNAL_HOOKS];
}
