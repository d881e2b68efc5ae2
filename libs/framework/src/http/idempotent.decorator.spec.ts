import { Body, Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { type ApplyContext, CommandError } from '@once/engine/internal';
import { HandlerDiscoveryError, scanHandlers } from '../handler-scan';
import { commandDisclosureOf } from '../command-disclosure';
import { ApplyCtx, Idempotent } from './idempotent.decorator';

const ctx = { op: 7, userId: 3 } as unknown as ApplyContext;

@Controller('/ledger/')
class LedgerRoutes {
  @Post('accounts/:id/deposit')
  @Idempotent({ sensitive: ['card'] })
  deposit(
    @Param('id') id: string,
    @Req() request: unknown,
    @Body() body: { amount: number },
    @ApplyCtx() context: ApplyContext,
    @Query('note') note?: string,
  ) {
    if (body.amount <= 0) throw new CommandError('INVALID_AMOUNT', 'amount must be positive');
    return { id, amount: body.amount, op: context.op, request: request ?? null, note };
  }

  @Idempotent()
  @HttpCode(202)
  @Post()
  root() {
    return undefined;
  }
}

describe('@Idempotent routes, as handler discovery finds them', () => {
  const { commands } = scanHandlers([new LedgerRoutes()]);

  it('registers each route as the command http:<METHOD> <path>, the controller path and the route path joined', () => {
    expect(commands.map((command) => command.pattern).sort()).toEqual([
      'http:POST /ledger',
      'http:POST /ledger/accounts/:id/deposit',
    ]);
  });

  it('calls the apply step with the journaled arguments in place, the context where declared, and nothing for the live request', () => {
    const deposit = commands.find((command) => command.pattern.endsWith('deposit'))!;
    const data = ['a-1', null, { amount: 5 }, null, 'gift'];
    expect(deposit.apply(data, ctx)).toEqual({
      id: 'a-1',
      amount: 5,
      op: 7,
      request: null,
      note: 'gift',
    });
  });

  it('lets a CommandError of the apply step through as the refusal', () => {
    const deposit = commands.find((command) => command.pattern.endsWith('deposit'))!;
    expect(() => deposit.apply(['a-1', null, { amount: 0 }, null, null], ctx)).toThrow(
      CommandError,
    );
  });

  it("tells the journal feed the route's sensitive fields under its pattern", () => {
    expect(
      commandDisclosureOf([new LedgerRoutes()]).get('http:POST /ledger/accounts/:id/deposit'),
    ).toEqual(['card']);
  });

  it('refuses a read route', () => {
    @Controller('x')
    class ReadRoute {
      @Get()
      @Idempotent()
      read() {
        return 1;
      }
    }
    expect(() => scanHandlers([new ReadRoute()])).toThrow(HandlerDiscoveryError);
    expect(() => scanHandlers([new ReadRoute()])).toThrow(
      /POST, PUT, PATCH or DELETE route, not GET/,
    );
  });

  it('refuses an async route, whose apply step could not be replayed', () => {
    @Controller('x')
    class AsyncRoute {
      @Post()
      @Idempotent()
      async write() {
        return Promise.resolve(1);
      }
    }
    expect(() => scanHandlers([new AsyncRoute()])).toThrow(/is async/);
  });

  it('refuses two controllers declaring the same route', () => {
    @Controller('ledger')
    class Twin {
      @Post()
      @Idempotent()
      root() {
        return undefined;
      }
    }
    @Controller('/')
    class Other {
      @Post('ledger')
      @Idempotent()
      root() {
        return undefined;
      }
    }
    expect(() => scanHandlers([new Twin(), new Other()])).toThrow(/declared @Idempotent by both/);
  });
});
