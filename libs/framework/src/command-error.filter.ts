import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import { CommandError } from '@once/engine';
import { type Observable, throwError } from 'rxjs';

/**
 * Keeps a CommandError's `code` and `message` when it is thrown in the NestJS
 * pipeline of an rpc handler (a query, a guard, a pipe), instead of NestJS's
 * generic "Internal server error". Other contexts are left to their own filters.
 */
@Catch(CommandError)
export class CommandErrorFilter implements ExceptionFilter<CommandError> {
  catch(error: CommandError, host: ArgumentsHost): Observable<never> {
    if (host.getType() !== 'rpc') throw error;
    return throwError(() => ({ code: error.code, message: error.message }));
  }
}
