import { type ClientId, type EvictionReason, type FrameHeader } from '@once/protocol';
import { type SessionBinding } from './session-binding';
import { type SessionGate } from './session-gate';
import { type SessionFacts } from './session-verdict';

/** What {@link LiveSessionFacts} reads the connection's binding from. */
interface BindingHolder {
  readonly binding: SessionBinding | undefined;
}

/**
 * The {@link SessionFacts} of one request, read live: the header's fields are
 * fixed, but the connection's binding and the client table's entry are read
 * at each access, and the token check and the reason for a missing session
 * are computed only when a rule asks. So one object serves every rule that
 * judges the request (the gateway's preflight, then the resume guard and the
 * epoch fence), however the table moved between them, and judging costs no
 * object or closure per rule: every request is judged three times.
 */
export class LiveSessionFacts implements SessionFacts {
  readonly client: ClientId;
  readonly session: number;
  readonly request: number;

  constructor(
    private readonly connection: BindingHolder,
    private readonly header: FrameHeader,
    private readonly gate: SessionGate,
  ) {
    this.client = header.client;
    this.session = header.session;
    this.request = header.request;
  }

  /** The session the connection holds now. */
  get binding(): SessionBinding | undefined {
    return this.connection.binding;
  }

  /** The client table's entry for `client` as it stands now. */
  get entry(): SessionFacts['entry'] {
    return this.gate.tableEntry(this.client);
  }

  tokenValid(): boolean {
    return this.gate.verifyResumeToken(this.client, this.session, this.header.resumeToken);
  }

  goneReason(): EvictionReason {
    return this.gate.goneReason(this.client);
  }
}
