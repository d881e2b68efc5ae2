import { Logger } from '@nestjs/common';
import {
  BaseRpcExceptionFilter,
  type MessageHandler,
  RpcException,
  Server,
} from '@nestjs/microservices';
import { type ClientEntry } from '@once/client-table/internal';
import {
  CommandError,
  type ConnectionView,
  OnceRpcContext,
  type SessionGate,
} from '@once/framework';
import {
  CommandErrorFilter,
  ONCE_PATTERN_KIND,
  ONCE_PATTERN_ROUTE,
  executionContextOf,
} from '@once/framework/internal';
import { Command as FrameCommand, EvictionReason, Operation } from '@once/protocol';
import { encodeFrame, frameFromBytes } from '@once/protocol/internal';
import { firstValueFrom, from, of, type Observable } from 'rxjs';
import { HandlerPipeline, QueryStreamError, refusalOf } from './handler-pipeline';

/** Message handlers as NestJS registers them on a transport. */
class Handlers extends Server {
  listen(): void {}
  close(): void {}
  on(): void {}
  unwrap<T>(): T {
    throw new Error('these handlers have no server');
  }
}

const gate: SessionGate = {
  tableEntry: (): ClientEntry | undefined => undefined,
  goneReason: () => EvictionReason.NoSession,
  verifyResumeToken: () => false,
  bindResumed: () => undefined,
};

/** The rpc context of a once request of user 4, past its guards or not. */
function onceContext(pattern: string, guardsPassed: boolean): OnceRpcContext {
  const connection: ConnectionView = {
    id: 1,
    remote: '127.0.0.1:1',
    binding: { client: 'a'.repeat(32), epoch: 1, userId: 4 },
  };
  const raw = encodeFrame(
    {
      command: FrameCommand.Request,
      operation: Operation.Query,
      client: 'a'.repeat(32),
      session: 1,
    },
    JSON.stringify({ pattern, data: {} }),
  );
  const context = new OnceRpcContext(connection, frameFromBytes(raw), pattern, gate);
  context.guardsPassed = guardsPassed;
  return context;
}

/** What NestJS's own RPC exception filter makes of `exception`: the error value a TCP client gets. */
async function nestAnswer(exception: unknown): Promise<unknown> {
  const host = executionContextOf('rpc', []);
  const answer = new BaseRpcExceptionFilter().catch(exception, host) as Observable<never>;
  return firstValueFrom(answer).catch((error: unknown) => error);
}

function recordingLog() {
  const lines: string[] = [];
  return { lines, error: (line: string) => void lines.push(line) };
}

// NestJS's filter logs what it does not know; these tests make it on purpose.
beforeAll(() => {
  Logger.overrideLogger(false);
});

describe('refusalOf', () => {
  it('keeps an RpcException’s error object as rpcError, and its code when it has one', async () => {
    const error = await nestAnswer(
      new RpcException({ code: 'INVALID_SEQ', message: 'bad', seq: 'x' }),
    );
    expect(refusalOf(error, onceContext('orders.get', true), 'QUERY_FAILED')).toEqual({
      code: 'INVALID_SEQ',
      message: 'bad',
      rpcError: { code: 'INVALID_SEQ', message: 'bad', seq: 'x' },
    });
  });

  it("gives a guard's refusal FORBIDDEN and a pipe's the stage code, with NestJS's error value", async () => {
    const forbidden = await nestAnswer(new RpcException('Forbidden resource'));
    expect(refusalOf(forbidden, onceContext('p', false), 'ADMISSION_REFUSED')).toEqual({
      code: 'FORBIDDEN',
      message: 'Forbidden resource',
      rpcError: { status: 'error', message: 'Forbidden resource' },
    });
    expect(refusalOf(forbidden, onceContext('p', true), 'ADMISSION_REFUSED').code).toBe(
      'ADMISSION_REFUSED',
    );
  });

  it('answers an exception NestJS did not know with an error id only, and logs the id', async () => {
    const log = recordingLog();
    const error = await nestAnswer(new Error('db password=hunter2'));
    const refusal = refusalOf(error, onceContext('orders.get', true), 'QUERY_FAILED', log);
    expect(refusal.code).toBe('QUERY_FAILED');
    expect(refusal.rpcError).toEqual({ status: 'error', message: 'Internal server error' });
    const errorId =
      /^the request failed \(error ([0-9a-f]{12})\); the server log has the details$/.exec(
        refusal.message,
      )?.[1];
    expect(errorId).toBeDefined();
    expect(log.lines).toEqual([
      `QUERY_FAILED "orders.get" for user 4 (error ${errorId}): NestJS's exception filter answered Internal server error (it logs the exception as RpcExceptionsHandler unless it is one of NestJS's HTTP exceptions)`,
    ]);
  });

  it('answers an Error a filter passed on with an error id, and logs its message and stack', () => {
    const log = recordingLog();
    const refusal = refusalOf(
      new Error('token=abc'),
      onceContext('p', false),
      'ADMISSION_REFUSED',
      log,
    );
    expect(refusal).toEqual({
      code: 'FORBIDDEN',
      message: expect.stringMatching(/^the request failed \(error [0-9a-f]{12}\)/) as unknown,
    });
    expect(JSON.stringify(refusal)).not.toContain('token=abc');
    expect(log.lines[0]).toContain('Error: token=abc\n');
  });

  it('answers a CommandError of the pipeline with its code and message, and no rpcError its author did not give', async () => {
    const host = executionContextOf('rpc', []);
    const passed = new CommandErrorFilter().catch(
      new CommandError('INVALID_ITEM', 'no item'),
      host,
    );
    const error = await firstValueFrom(passed).catch((failure: unknown) => failure);
    expect(refusalOf(error, onceContext('p', true), 'ADMISSION_REFUSED')).toEqual({
      code: 'INVALID_ITEM',
      message: 'no item',
      rpcError: undefined,
    });
  });

  it('keeps what a CommandError or an RpcException rethrown by a filter carries', () => {
    const context = onceContext('p', true);
    const commandError = new CommandError('NO_STOCK', 'out', { rpcError: { code: 'NO_STOCK' } });
    expect(refusalOf(commandError, context, 'QUERY_FAILED')).toEqual({
      code: 'NO_STOCK',
      message: 'out',
      rpcError: { code: 'NO_STOCK' },
    });
    expect(refusalOf(new RpcException('gone'), context, 'QUERY_FAILED')).toEqual({
      code: 'QUERY_FAILED',
      message: 'gone',
      rpcError: { status: 'error', message: 'gone' },
    });
  });
});

describe('HandlerPipeline.runQuery', () => {
  const handlers = new Handlers();
  const add = (pattern: string, handler: (data: unknown) => unknown) =>
    handlers.addHandler(pattern, handler as MessageHandler, false, {
      [ONCE_PATTERN_KIND]: 'query',
      [ONCE_PATTERN_ROUTE]: pattern,
    });
  add('one', () => of(7));
  add('value', () => Promise.resolve({ n: 1 }));
  add('none', () => from([]));
  add('stream', () => from([1, 2, 3, 4, 5]));
  const pipeline = new HandlerPipeline(handlers);
  const run = (pattern: string) =>
    pipeline.runQuery(pipeline.handlerFor(pattern, 'query')!, {}, onceContext(pattern, true));

  it('answers the one value, or undefined when there is none', async () => {
    await expect(run('one')).resolves.toBe(7);
    await expect(run('value')).resolves.toEqual({ n: 1 });
    await expect(run('none')).resolves.toBeUndefined();
  });

  it('refuses a stream REPLY_NOT_SINGLE, saying a @Query replies once', async () => {
    const streamed = run('stream');
    await expect(streamed).rejects.toBeInstanceOf(QueryStreamError);
    const error = await streamed.catch((failure: unknown) => failure);
    expect(refusalOf(error, onceContext('stream', true), 'QUERY_FAILED')).toEqual({
      code: 'REPLY_NOT_SINGLE',
      message:
        "a @Query replies once: the handler of 'stream' emitted more than one value; return the value (or an array of the values) instead of a stream",
    });
  });
});
