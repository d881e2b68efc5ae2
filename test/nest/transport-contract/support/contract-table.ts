/**
 * The server half of NestJS's TCP transport contract, as once keeps it: one
 * row per scenario of NestJS's own TCP integration specs, with what NestJS
 * TCP does and what once does. Once either does the same (the suite runs both
 * and compares) or refuses, at bootstrap or at the call, with a stable code
 * and a message that says why and what to write instead. The suite asserts
 * these texts; the README's table is written from them.
 */

/** What once does in a row. */
export type OnceBehaviour =
  | { readonly kind: 'same' }
  | { readonly kind: 'refused at bootstrap'; readonly code: string; readonly message: string }
  | { readonly kind: 'refused at the call'; readonly code: string; readonly message: string };

export interface ContractRow {
  readonly scenario: string;
  readonly nestTcp: string;
  readonly once: OnceBehaviour;
  /** What once does, in words (with `once` above, the README's cell). */
  readonly onceText: string;
}

const SAME = { kind: 'same' } as const;

/** A refusal message's part that varies: `<op>` or `<error id>` (12 hex digits). */
export function messagePattern(message: string): RegExp {
  const escaped = message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped.replace('<op>', '[0-9]+').replace('<error id>', '[0-9a-f]{12}')}$`);
}

export const CONTRACT = {
  observableOne: {
    scenario: 'the handler returns `of(value)`',
    nestTcp: 'the client receives the value',
    once: SAME,
    onceText: '@Command and @Query reply the value',
  },
  observableEmpty: {
    scenario: 'the handler returns an Observable that completes without a value (`EMPTY`)',
    nestTcp: 'the client completes without a value, exactly as for a handler returning undefined',
    once: SAME,
    onceText:
      'the reply is marked as having no value (`{"ok":true,"result":null,"empty":true}`, as for a handler returning undefined) and OnceClientProxy completes without a value',
  },
  asyncQuery: {
    scenario: 'an `async` handler (@Query on once)',
    nestTcp: 'the client receives the resolved value',
    once: SAME,
    onceText: 'a @Query replies the resolved value',
  },
  asyncCommand: {
    scenario: 'an `async` handler (@Command on once)',
    nestTcp: 'the client receives the resolved value',
    once: {
      kind: 'refused at bootstrap',
      code: 'HANDLER_DISCOVERY',
      message:
        "AsyncSumController.asyncSum: @Command('sum.async') is async (it returns a Promise), but a command's apply step must be synchronous: it runs when the entry commits and again on every replay, and its reply is cached. Move the async work to an @Admit('sum.async') step (what it returns is journaled and handed to apply) and make AsyncSumController.asyncSum synchronous.",
    },
    onceText: 'the app does not start: `listen()` rejects',
  },
  laterQuery: {
    scenario: 'the handler returns an Observable that emits one value later (`timer`)',
    nestTcp: 'the client receives the value',
    once: SAME,
    onceText: 'a @Query waits and replies the value',
  },
  laterCommand: {
    scenario: 'a @Command returns an Observable that emits one value later',
    nestTcp: 'the client receives the value',
    once: {
      kind: 'refused at the call',
      code: 'REPLY_NOT_SINGLE',
      message:
        "a @Command replies once, when it is applied: the Observable the handler of 'sum.later' returned did not complete synchronously; return the value itself (apply is synchronous; move waiting to an @Admit step)",
    },
    onceText: 'a committed refusal (a retry gets the same bytes)',
  },
  streamCommand: {
    scenario: 'the handler streams `from([1, 2, 3, 4, 5])` (@Command on once)',
    nestTcp: 'the client receives 1, 2, 3, 4 and 5',
    once: {
      kind: 'refused at the call',
      code: 'REPLY_NOT_SINGLE',
      message:
        "a @Command replies once: the handler of 'sum.stream' emitted more than one value; return the value (or an array of the values) instead of a stream",
    },
    onceText: 'a committed refusal; the apply step ran once, a retry gets the same bytes',
  },
  streamQuery: {
    scenario: 'the handler streams `from([1, 2, 3, 4, 5])` (@Query on once)',
    nestTcp: 'the client receives 1, 2, 3, 4 and 5',
    once: {
      kind: 'refused at the call',
      code: 'REPLY_NOT_SINGLE',
      message:
        "a @Query replies once: the handler of 'sum.stream.read' emitted more than one value; return the value (or an array of the values) instead of a stream",
    },
    onceText: 'refused (never the last value alone)',
  },
  objectPattern: {
    scenario: "`send({ cmd: 'sum' }, data)` to a handler of the object pattern `{ cmd: 'sum' }`",
    nestTcp: 'the handler runs (NestJS routes the object as its JSON with sorted keys)',
    once: SAME,
    onceText:
      '@Command and @Query take object patterns and route them as NestJS does; a request naming `{"cmd":"sum"}` (keys in any order) reaches the handler, and a command is journaled under the route',
  },
  eventOnOnce: {
    scenario: 'an `@EventPattern` handler NestJS binds to the once transport',
    nestTcp: '`emit()` runs it',
    once: {
      kind: 'refused at bootstrap',
      code: 'NOT_A_ONCE_HANDLER',
      message: [
        'the once transport serves only @Command and @Query handlers; this handler is bound to it:',
        "- NotificationsController.notified: @EventPattern('notification') is bound to the once transport. On once, events are journaled commands: use @Command('notification') (a client's emit() sends it exactly once and completes when it is committed), or bind the handler to another transport (@EventPattern('notification', Transport.TCP)) in a hybrid app.",
      ].join('\n'),
    },
    onceText:
      'the app does not start: `listen()` rejects (in a hybrid app with another transport, a handler declared without a transport starts and runs there)',
  },
  emitCommand: {
    scenario: '`emit(pattern, data)`',
    nestTcp: 'the @EventPattern handler runs',
    once: SAME,
    onceText:
      'the @Command runs exactly once, even when the client resends it; `emit()` completes when it is committed',
  },
  rpcExceptionObject: {
    scenario: "`throw new RpcException({ code: 'INVALID_SEQ', message, seq })` in the handler",
    nestTcp: 'the client errors with that object',
    once: SAME,
    onceText:
      "refusal `INVALID_SEQ` (the object's code) with the object as `error.rpcError` (a @Command's is committed)",
  },
  rpcExceptionString: {
    scenario: "`throw new RpcException('no such order')` in the handler",
    nestTcp: "the client errors with `{ status: 'error', message: 'no such order' }`",
    once: SAME,
    onceText: 'refusal `RPC_EXCEPTION` with that object as `error.rpcError`',
  },
  rpcExceptionGuard: {
    scenario: 'a guard throws `RpcException({ code, message })`',
    nestTcp: 'the client errors with that object',
    once: SAME,
    onceText: "a committed refusal with the object's code and the object as `error.rpcError`",
  },
  filterAtApply: {
    scenario:
      'the handler throws; a global (`useGlobalFilters`), class or method (`@UseFilters`) exception filter catches it',
    nestTcp: "the filter is called; the client errors with the filter's answer",
    once: {
      kind: 'refused at the call',
      code: 'HANDLER_FAILED',
      message: 'the handler failed at op <op>; the server log has the details',
    },
    onceText:
      'the filter is called, live only (never on replay), with an rpc host whose args are `[data, ApplyContext]`; its answer cannot become the committed reply, which replay must rebuild to the byte',
  },
  filterAtAdmission: {
    scenario: 'a guard throws; a global exception filter catches it',
    nestTcp: "the filter is called; the client errors with the filter's answer",
    once: SAME,
    onceText: 'the filter is called; its answer is the committed refusal (and `error.rpcError`)',
  },
  secretInApply: {
    scenario: 'the handler throws `new Error(…secret…)` (@Command on once)',
    nestTcp:
      "the client errors with `{ status: 'error', message: 'Internal server error' }`; the error is in the server log",
    once: {
      kind: 'refused at the call',
      code: 'HANDLER_FAILED',
      message: 'the handler failed at op <op>; the server log has the details',
    },
    onceText:
      'a committed refusal naming the op, byte-identical on replay; the message and stack are in the server log (live only), never in the reply',
  },
  secretInQuery: {
    scenario: 'the handler throws `new Error(…secret…)` (@Query on once)',
    nestTcp:
      "the client errors with `{ status: 'error', message: 'Internal server error' }`; the error is in the server log",
    once: {
      kind: 'refused at the call',
      code: 'QUERY_FAILED',
      message: 'the request failed (error <error id>); the server log has the details',
    },
    onceText:
      "the error id is logged; OnceClientProxy's caller gets CommandRefusedError with this code and message, and NestJS's `{ status: 'error', message: 'Internal server error' }` as its `rpcError`",
  },
  secretInGuard: {
    scenario: 'a guard throws `new Error(…secret…)`',
    nestTcp:
      "the client errors with `{ status: 'error', message: 'Internal server error' }`; the error is in the server log",
    once: {
      kind: 'refused at the call',
      code: 'FORBIDDEN',
      message: 'the request failed (error <error id>); the server log has the details',
    },
    onceText:
      "a committed refusal; the error id is logged; OnceClientProxy's caller gets CommandRefusedError with this code and message, and NestJS's answer as its `rpcError`",
  },
  secretInAdmit: {
    scenario: 'an `@Admit` step throws `new Error(…secret…)` (once only)',
    nestTcp: '(no admission step)',
    once: {
      kind: 'refused at the call',
      code: 'ADMISSION_FAILED',
      message: 'the admission step failed (error <error id>); the server log has the details',
    },
    onceText: 'a committed refusal; the error id, message and stack are in the server log',
  },
} as const satisfies Record<string, ContractRow>;
