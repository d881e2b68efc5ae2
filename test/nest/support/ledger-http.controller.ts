import {
  type ArgumentsHost,
  Body,
  Catch,
  Controller,
  type ExceptionFilter,
  Get,
  Inject,
  Param,
  Post,
  UseFilters,
} from '@nestjs/common';
import { ClientProxy } from '@nestjs/microservices';
import { CommandRefusedError } from '@once/sdk';
import { firstValueFrom } from 'rxjs';

/** Injection token of the ledger client (an OnceClientProxy registered with ClientsModule). */
export const LEDGER = 'LEDGER';

const REFUSAL_STATUS: Readonly<Record<string, number>> = {
  ACCOUNT_NOT_FOUND: 404,
  ACCOUNT_EXISTS: 409,
};

interface HttpResponse {
  status(code: number): { json(body: unknown): void };
}

/** A committed refusal of the ledger, as an HTTP 4xx carrying the handler's code. */
@Catch(CommandRefusedError)
export class LedgerRefusalFilter implements ExceptionFilter<CommandRefusedError> {
  catch(error: CommandRefusedError, host: ArgumentsHost): void {
    host
      .switchToHttp()
      .getResponse<HttpResponse>()
      .status(REFUSAL_STATUS[error.code] ?? 422)
      .json({ code: error.code, message: error.message });
  }
}

/** HTTP in front of the reference service's ledger, through the once ClientProxy. */
@Controller()
@UseFilters(LedgerRefusalFilter)
export class LedgerHttpController {
  constructor(@Inject(LEDGER) private readonly ledger: ClientProxy) {}

  @Post('accounts')
  open(@Body() body: { account: string }): Promise<unknown> {
    return firstValueFrom(this.ledger.send('ledger.open', body));
  }

  @Post('deposit')
  deposit(@Body() body: { account: string; amount: number }): Promise<unknown> {
    return firstValueFrom(this.ledger.send('ledger.deposit', body));
  }

  @Get('balance/:account')
  balance(@Param('account') account: string): Promise<unknown> {
    return firstValueFrom(this.ledger.send('ledger.balance', { account }));
  }
}
