import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import { CommandError } from '@once/engine/internal';
import { type Observable, throwError } from 'rxjs';

/**
 * Keeps a CommandError as it is when it is thrown in the NestJS pipeline of
 * an rpc handler (a query, a guard, a pipe), instead of NestJS's generic
 * "Internal server error": the gateway answers its code and message (and
 * its `rpcError` only when its author gave one), at admission as at apply.
 * Other contexts are left to their own filters.
 */
@Catch(CommandError)
export class CommandErrorFilter implements ExceptionFilter<CommandError> {
  catch(error: CommandError, host: ArgumentsHost): Observable<never> {
    if (host.getType() !== 'rpc') throw error;
    return throwError(() => error);
  }
}
