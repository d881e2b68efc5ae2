import { BaseRpcContext } from '@nestjs/microservices';
import { ADMISSION_SINK, type AdmissionSink, type AdmissionTicket } from '../admission-ticket';
import { type ClientId, type Frame, type FrameHeader } from '@once/protocol';
import { type GatewayException } from './exceptions/gateway.exception';
import { LiveSessionFacts } from './live-session-facts';
import { type SessionBinding } from './session-binding';
import { type SessionGate } from './session-gate';
import { type SessionFacts } from './session-verdict';

/** The connection a request arrived on, as guards and handlers see it. */
export interface ConnectionView {
  readonly id: number;
  /** `address:port` of the peer. */
  readonly remote: string;
  readonly binding: SessionBinding | undefined;
}

type OnceRpcArgs = [connection: ConnectionView, frame: Frame, pattern: string, gate: SessionGate];

/**
 * The rpc context of a once request (`ctx.switchToRpc().getContext()` in a
 * guard or interceptor, `@Ctx()` in a query handler): which connection, which
 * session, which frame.
 */
export class OnceRpcContext extends BaseRpcContext<OnceRpcArgs> implements AdmissionSink {
  /** The admission a @Command's pipeline produced (set by its stub). */
  admission: AdmissionTicket | undefined;
  /**
   * The refusal a session guard decided, whatever exception filters later
   * make of the exception it threw: the gateway answers it with the frame
   * PROTOCOL.md names, and journals nothing.
   */
  sessionRefusal: GatewayException | undefined;
  /**
   * True once the pipeline got past its guards and interceptors to the
   * handler's parameters: a failure before that is a guard's refusal, after
   * it a pipe's or the handler's.
   */
  guardsPassed = false;
  private facts: LiveSessionFacts | undefined;

  constructor(connection: ConnectionView, frame: Frame, pattern: string, gate: SessionGate) {
    super([connection, frame, pattern, gate]);
  }

  getConnection(): ConnectionView {
    return this.args[0];
  }
  getFrame(): Frame {
    return this.args[1];
  }
  getHeader(): FrameHeader {
    return this.args[1].header;
  }
  getPattern(): string {
    return this.args[2];
  }
  /** The gate the built-in session guards use. */
  getGate(): SessionGate {
    return this.args[3];
  }
  /** The session this connection holds, once the resume guard ran. */
  getBinding(): SessionBinding | undefined {
    return this.args[0].binding;
  }
  /** The session's user id, when bound. */
  getUserId(): number | undefined {
    return this.args[0].binding?.userId;
  }
  getClient(): ClientId {
    return this.args[1].header.client;
  }

  /**
   * What the session rules judge: one object per request whose binding and
   * table entry are read at each access (the table may change between two
   * rules), made at the first call.
   */
  sessionFacts(): SessionFacts {
    return (this.facts ??= new LiveSessionFacts(this.args[0], this.args[1].header, this.args[3]));
  }

  /** Records a session guard's refusal (see {@link sessionRefusal}) and returns it, to throw. */
  refuseSession<E extends GatewayException>(refusal: E): E {
    this.sessionRefusal = refusal;
    return refusal;
  }

  [ADMISSION_SINK](ticket: AdmissionTicket): void {
    this.admission = ticket;
  }
}
