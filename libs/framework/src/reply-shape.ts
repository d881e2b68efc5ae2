import { CommandError } from '@once/engine/internal';
import { isObservable, take } from 'rxjs';
import { patternLabel } from './once-pattern';

/**
 * The refusal code of a once handler that did not reply with exactly one
 * value: NestJS TCP streams every value an Observable emits, once answers a
 * request with one reply (a command's is cached and replayed).
 */
export const REPLY_NOT_SINGLE = 'REPLY_NOT_SINGLE';

/** Thrown by the apply step of a `@Command` whose Observable is not one synchronous value. */
export class ReplyNotSingleError extends CommandError {
  constructor(message: string) {
    super(REPLY_NOT_SINGLE, message);
    this.name = 'ReplyNotSingleError';
  }
}

/** The message of a query whose handler emitted more than one value. */
export function queryStreamMessage(route: string): string {
  return `a @Query replies once: the handler of ${patternLabel(route)} emitted more than one value; return the value (or an array of the values) instead of a stream`;
}

/**
 * What a `@Command`'s apply step replies, from what its method returned: the
 * value itself, or the one value an Observable emits synchronously before it
 * completes (`of(x)` replies `x`, as on NestJS TCP; an Observable that
 * completes without a value replies like a method returning undefined). An
 * Observable's error is thrown as the method's own would be.
 *
 * More than one value, or an Observable still running after subscribe
 * returned, throws {@link ReplyNotSingleError}: apply is synchronous and its
 * reply is cached, so it cannot stream or wait. The subscription is ended
 * either way (at most two values are taken), so nothing it does later can
 * change the state outside apply.
 */
export function commandReplyOf(returned: unknown, route: string): unknown {
  if (!isObservable(returned)) return returned;
  let count = 0;
  let value: unknown;
  let completed = false;
  let failure: { error: unknown } | undefined;
  returned
    .pipe(take(2))
    .subscribe({
      next: (next) => {
        count++;
        value = next;
      },
      error: (error: unknown) => {
        failure = { error };
      },
      complete: () => {
        completed = true;
      },
    })
    .unsubscribe();
  if (failure) throw failure.error;
  const label = patternLabel(route);
  if (count > 1) {
    throw new ReplyNotSingleError(
      `a @Command replies once: the handler of ${label} emitted more than one value; return the value (or an array of the values) instead of a stream`,
    );
  }
  if (!completed) {
    throw new ReplyNotSingleError(
      `a @Command replies once, when it is applied: the Observable the handler of ${label} returned did not complete synchronously; return the value itself (apply is synchronous; move waiting to an @Admit step)`,
    );
  }
  return value;
}
