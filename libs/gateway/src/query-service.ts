import { type GatewayException, NotBoundException, type OnceRpcContext } from '@once/framework';
import { fenceRefusal, fenceVerdict } from '@once/framework/internal';
import { Command, type Operation, Status } from '@once/protocol';
import { type ParsedRequest, encodeReplyTo, errorBody, okBody } from '@once/protocol/internal';
import { type AdmissionHost } from './admission-host';
import { type HandlerPipeline, refusalOf } from './handler-pipeline';
import { PATTERN_CATALOGUE_QUERY } from './pattern-catalogue';
import { unknownPatternMessage } from './unknown-pattern-message';

type Query = Extract<ParsedRequest, { operation: Operation.Query }>;

/**
 * QUERY: a read of the state after every committed entry, on a bound
 * connection, through the query handler's NestJS pipeline; never journaled.
 * A failure is an OK reply whose body carries the refusal (PROTOCOL.md), with
 * the error value a NestJS client would get as `rpcError` (PROTOCOL-NOTES).
 * A query replies once: a second value of its Observable is REPLY_NOT_SINGLE.
 */
export class QueryService {
  constructor(
    private readonly host: AdmissionHost,
    private readonly pipeline: HandlerPipeline,
  ) {}

  /** The session refusal to answer instead, or nothing (then {@link serve}). */
  preflight(context: OnceRpcContext): GatewayException | undefined {
    if (!context.getBinding()) return new NotBoundException();
    const fence = fenceVerdict(context.sessionFacts());
    return fence.kind === 'pass' ? undefined : fenceRefusal(fence);
  }

  /** Runs the query; returns the reply frame, or a session refusal a guard decided on the way. */
  async serve(context: OnceRpcContext, request: Query): Promise<Buffer | GatewayException> {
    const frame = context.getFrame();
    const watermark = this.host.engine.table.get(frame.header.client)?.watermark ?? 0;
    const handler = this.pipeline.handlerFor(request.pattern, 'query');
    let body: Buffer;
    if (request.pattern === PATTERN_CATALOGUE_QUERY) {
      // Reserved: the node answers it itself, whatever handlers the application has.
      body = okBody(this.pipeline.catalogue());
    } else if (!handler) {
      body = errorBody('UNKNOWN_PATTERN', unknownPatternMessage('query', request.pattern));
    } else {
      try {
        body = okBody((await this.pipeline.runQuery(handler, request.data, context)) ?? null);
      } catch (error) {
        if (context.sessionRefusal) return context.sessionRefusal;
        const failureLog = this.pipeline.failureLog;
        const { code, message, rpcError } = refusalOf(error, context, 'QUERY_FAILED', failureLog);
        body = errorBody(code, message, rpcError);
      }
    }
    return encodeReplyTo(
      frame,
      { command: Command.Reply, status: Status.Ok, commit: this.host.engine.commitOp, watermark },
      body,
    );
  }
}
