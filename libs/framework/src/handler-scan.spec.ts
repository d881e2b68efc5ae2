import { RpcException } from '@nestjs/microservices';
import { type ApplyContext, CommandError, type CommandHandler } from '@once/engine/internal';
import { ZERO_CLIENT_ID } from '@once/protocol/internal';
import { EMPTY, from, Observable, of, throwError, timer } from 'rxjs';
import { Admit } from './decorators/admit.decorator';
import { Command } from './decorators/command.decorator';
import { HandlerDiscoveryError, scanHandlers } from './handler-scan';
import { RpcExceptionRefusal } from './rpc-error';

const CTX: ApplyContext = {
  op: 9,
  timestamp: 1n,
  userId: 3,
  client: ZERO_CLIENT_ID,
  version: 1,
  versions: {},
};

/** A team controller whose apply steps reply in every shape NestJS TCP accepts. */
class Shapes {
  /** How many times a side effect before the reply ran. */
  applied = 0;

  @Command('value')
  value(data: number): number {
    this.applied++;
    return data * 2;
  }

  @Command('one')
  one(data: number): Observable<number> {
    return of(data + 1);
  }

  @Command('none')
  none(): Observable<never> {
    return EMPTY;
  }

  @Command('stream')
  stream(data: number[]): Observable<number> {
    this.applied++;
    return from(data);
  }

  @Command('endless')
  endless(): Observable<number> {
    return new Observable<number>((subscriber) => {
      for (let n = 0; !subscriber.closed; n++) subscriber.next(n);
    });
  }

  @Command('later')
  later(): Observable<number> {
    return timer(1);
  }

  @Command('stream-error')
  streamError(): Observable<never> {
    return throwError(() => new CommandError('NO_STOCK', 'out of stock'));
  }

  @Command({ cmd: 'sum', v: 2 })
  sum(data: number[]): number {
    return data.reduce((a, b) => a + b, 0);
  }

  @Command('rpc-object')
  rpcObject(): never {
    throw new RpcException({ code: 'INVALID_SEQ', message: 'seq must be a number', seq: 'x' });
  }

  @Command('rpc-lowercase-code')
  rpcLowercase(): never {
    throw new RpcException({ code: 'e42', data: [1] });
  }

  @Command('rpc-string')
  rpcString(): never {
    throw new RpcException('no such order');
  }

  @Admit({ v: 2, cmd: 'sum' })
  checkSum(data: number[]): number[] {
    if (data.length === 0) throw new RpcException({ code: 'EMPTY_SUM', message: 'nothing to add' });
    return data;
  }
}

class AsyncCommand {
  @Command('ledger.settle')
  async settle(): Promise<number> {
    return Promise.resolve(1);
  }
}

class PromiseTyped {
  @Command('ledger.defer')
  defer(): Promise<number> {
    return Promise.resolve(1);
  }
}

function scan(instance: object): Map<string, CommandHandler> {
  return new Map(scanHandlers([instance]).commands.map((handler) => [handler.pattern, handler]));
}

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('it did not throw');
}

describe('scanHandlers: the apply step of a @Command', () => {
  const shapes = new Shapes();
  const handlers = scan(shapes);
  const apply = (pattern: string, data: unknown = null) => handlers.get(pattern)!.apply(data, CTX);

  it('replies the value, or the one value an Observable emits synchronously (NestJS TCP replies the same)', () => {
    expect(apply('value', 4)).toBe(8);
    expect(apply('one', 4)).toBe(5);
    expect(apply('none')).toBeUndefined();
  });

  it('refuses REPLY_NOT_SINGLE a stream of values, saying a @Command replies once', () => {
    const before = shapes.applied;
    const error = thrownBy(() => apply('stream', [1, 2, 3, 4, 5]));
    expect(error).toBeInstanceOf(CommandError);
    expect(error).toMatchObject({
      code: 'REPLY_NOT_SINGLE',
      message: `a @Command replies once: the handler of 'stream' emitted more than one value; return the value (or an array of the values) instead of a stream`,
    });
    expect(shapes.applied).toBe(before + 1);
    // A synchronous stream without end is cut at its second value.
    expect(thrownBy(() => apply('endless'))).toMatchObject({ code: 'REPLY_NOT_SINGLE' });
  });

  it('refuses REPLY_NOT_SINGLE an Observable that has not completed when subscribe returns', () => {
    expect(thrownBy(() => apply('later'))).toMatchObject({
      code: 'REPLY_NOT_SINGLE',
      message: expect.stringContaining(
        "the Observable the handler of 'later' returned did not complete synchronously",
      ) as unknown,
    });
  });

  it("throws an Observable's error as the method's own", () => {
    expect(thrownBy(() => apply('stream-error'))).toMatchObject({ code: 'NO_STOCK' });
  });

  it('registers an object pattern under NestJS’s route of it (sorted keys), with its @Admit step', async () => {
    const sum = handlers.get('{"cmd":"sum","v":2}');
    expect(sum?.apply([1, 2, 3], CTX)).toBe(6);
    const admission = { pattern: '{"cmd":"sum","v":2}', userId: 3, client: ZERO_CLIENT_ID };
    await expect(sum?.admit?.([1], admission)).resolves.toEqual([1]);
    const refused = sum?.admit?.([], admission) as Promise<unknown>;
    await expect(refused).rejects.toBeInstanceOf(RpcExceptionRefusal);
    await expect(refused).rejects.toMatchObject({
      code: 'EMPTY_SUM',
      message: 'nothing to add',
      rpcError: { code: 'EMPTY_SUM', message: 'nothing to add' },
    });
  });

  it('refuses an RpcException with what NestJS TCP would send as the error, and its code when it has one', () => {
    expect(thrownBy(() => apply('rpc-object'))).toMatchObject({
      code: 'INVALID_SEQ',
      message: 'seq must be a number',
      rpcError: { code: 'INVALID_SEQ', message: 'seq must be a number', seq: 'x' },
    });
    expect(thrownBy(() => apply('rpc-lowercase-code'))).toMatchObject({
      code: 'RPC_EXCEPTION',
      message: '{"code":"e42","data":[1]}',
      rpcError: { code: 'e42', data: [1] },
    });
    const refusal = thrownBy(() => apply('rpc-string')) as RpcExceptionRefusal;
    expect(refusal).toMatchObject({
      code: 'RPC_EXCEPTION',
      message: 'no such order',
      rpcError: { status: 'error', message: 'no such order' },
    });
    expect(refusal.exception).toBeInstanceOf(RpcException);
  });

  it('hands each apply step the reporter its method was given', () => {
    const reporter = () => undefined;
    const reporters: string[] = [];
    const scanned = scanHandlers([new Shapes()], (_instance, methodKey) => {
      reporters.push(methodKey);
      return reporter;
    });
    expect(scanned.commands.every((handler) => handler.reportFailure === reporter)).toBe(true);
    expect(reporters).toContain('stream');
    expect(reporters).not.toContain('checkSum');
  });
});

describe('scanHandlers at bootstrap', () => {
  it.each([
    ['declared async', new AsyncCommand(), 'AsyncCommand.settle', 'ledger.settle'],
    ['typed to return a Promise', new PromiseTyped(), 'PromiseTyped.defer', 'ledger.defer'],
  ])(
    'refuses a @Command method %s, naming it and the @Admit step to use',
    (_what, instance, owner, pattern) => {
      const error = thrownBy(() => scanHandlers([instance]));
      expect(error).toBeInstanceOf(HandlerDiscoveryError);
      expect((error as Error).message).toBe(
        `${owner}: @Command('${pattern}') is async (it returns a Promise), but a command's apply step must be synchronous: it runs when the entry commits and again on every replay, and its reply is cached. Move the async work to an @Admit('${pattern}') step (what it returns is journaled and handed to apply) and make ${owner} synchronous.`,
      );
    },
  );
});
