import { Logger } from '@nestjs/common';
import { type ApplyOutcome, CLIENT_OWNED_BY_OTHER_USER_MESSAGE } from '@once/engine/internal';
import { EngineUnavailableError } from '@once/engine';
import { type OnceRuntime } from '@once/framework';
import { EntryKind } from '@once/journal';
import { type Frame, type Operation, Status } from '@once/protocol';
import { type ParsedRequest, ZERO_CHECKSUM, withRequestChecksum } from '@once/protocol/internal';
import { type AdmissionHost } from './admission-host';
import { JOURNAL_FAILED_MESSAGE, NOT_READY_MESSAGE } from './gateway-answers';
import { type GatewayConnection } from './gateway-connection';
import { type JournalRoom } from './journal-room';
import { RegisterThrottle } from './register-throttle';
import { type ReplyRouter } from './reply-router';

type Register = Extract<ParsedRequest, { operation: Operation.Register }>;

export interface RegisterLimits {
  readonly failedPerConnection: number;
  readonly failedPerAddressPerMinute: number;
  readonly failedPerUserPerMinute: number;
}

/** A REGISTER journaled and not applied yet: answered NOT_READY if the journal fails. */
interface PendingRegister {
  readonly connection: GatewayConnection;
  readonly frame: Frame;
}

/**
 * REGISTER: the throttle of failed attempts (per address, per username: see
 * `RegisterThrottle`; credentials are always checked), the per-connection
 * limit, the credentials (the application's authenticator, at admission: nothing
 * secret is journaled), the owner check, and the journal entry whose apply
 * makes the session. The connection holds the session once it applied.
 */
export class RegisterAdmission {
  private readonly logger = new Logger('OnceGateway');
  private readonly throttle: RegisterThrottle;
  private readonly pending = new Set<PendingRegister>();

  constructor(
    private readonly host: AdmissionHost,
    private readonly runtime: OnceRuntime,
    private readonly room: JournalRoom,
    private readonly router: ReplyRouter,
    private readonly limits: RegisterLimits,
  ) {
    this.throttle = new RegisterThrottle(limits);
  }

  async admit(connection: GatewayConnection, frame: Frame, request: Register): Promise<void> {
    const { client } = frame.header;
    const attempt = await this.throttle.attempt(connection.address, request.username, () =>
      this.authenticate(request),
    );
    if (attempt.kind === 'stopped' || !this.host.serving(connection)) {
      return this.host.answer(connection, frame, Status.NotReady, NOT_READY_MESSAGE);
    }
    const userId = attempt.value;
    if (userId === undefined) return this.refuseCredentials(connection, frame);
    const owner = this.host.engine.table.get(client);
    if (owner && owner.userId !== userId) {
      return this.host.answer(
        connection,
        frame,
        Status.ClientOwnedByOtherUser,
        CLIENT_OWNED_BY_OTHER_USER_MESSAGE,
      );
    }
    if (!this.host.serving()) {
      return this.host.answer(connection, frame, Status.NotReady, NOT_READY_MESSAGE);
    }
    // Checked and appended in one synchronous step: nothing can take the room between.
    while (!this.room.has()) {
      await this.room.wait();
      if (!this.host.serving(connection))
        return this.host.answer(connection, frame, Status.NotReady, NOT_READY_MESSAGE);
    }
    this.journal(connection, frame, userId);
  }

  private async authenticate(request: Register): Promise<number | undefined> {
    const authenticator = this.runtime.authenticator;
    if (!authenticator) return undefined;
    try {
      return await authenticator.authenticate(request.username, request.password);
    } catch (error) {
      this.logger.error(`authenticator failed: ${String(error)}`);
      return undefined;
    }
  }

  private refuseCredentials(connection: GatewayConnection, frame: Frame): void {
    connection.failedRegisters++;
    this.logger.warn(
      `connection #${connection.id} from ${connection.remote}: REGISTER of client ${frame.header.client} refused: bad credentials (${connection.failedRegisters} on this connection)`,
    );
    this.host.answer(
      connection,
      frame,
      Status.Unauthenticated,
      'wrong credentials or a disabled user',
    );
    if (connection.failedRegisters >= this.limits.failedPerConnection) connection.end();
  }

  /** Appends the REGISTER entry; its outcome answers and binds. Releases its record on every exit. */
  private journal(connection: GatewayConnection, frame: Frame, userId: number): void {
    const pending: PendingRegister = { connection, frame };
    this.pending.add(pending);
    try {
      this.host.engine.submit(
        {
          kind: EntryKind.Register,
          client: frame.header.client,
          session: 0,
          request: 0,
          userId,
          // Not the body's checksum: the body holds the password, and a fast
          // hash of it on disk could be searched for the password offline. The
          // live reply gets the real one (answerRegistered); no REGISTER reply
          // is ever sent from the journal.
          requestChecksum: ZERO_CHECKSUM,
          body: Buffer.alloc(0),
        },
        (outcome) => {
          this.pending.delete(pending);
          this.answerRegistered(connection, frame, outcome);
        },
      );
    } catch (error) {
      this.pending.delete(pending);
      if (!(error instanceof EngineUnavailableError)) throw error;
      this.host.answer(connection, frame, Status.NotReady, JOURNAL_FAILED_MESSAGE);
    }
  }

  private answerRegistered(origin: GatewayConnection, request: Frame, outcome: ApplyOutcome): void {
    if (outcome.reply) origin.send(withRequestChecksum(outcome.reply, request.header.checksumBody));
    const registered = outcome.registered;
    if (!registered || origin.closed) return;
    this.router.bind(origin, {
      client: registered.client,
      epoch: registered.epoch,
      userId: registered.userId,
    });
    this.logger.log(
      `connection #${origin.id} holds client ${registered.client} epoch ${registered.epoch} (user ${registered.userId}, watermark ${registered.watermark}${registered.previousEpoch ? `, resumed from epoch ${registered.previousEpoch}` : ''})`,
    );
  }

  /** The gateway stops: REGISTERs held by the throttle are answered now (NOT_READY). */
  stop(): void {
    this.throttle.stop();
  }

  /** The journal failed: no pending REGISTER will apply; each is answered NOT_READY. */
  failPending(): void {
    for (const { connection, frame } of this.pending) {
      this.host.answer(connection, frame, Status.NotReady, JOURNAL_FAILED_MESSAGE);
    }
    this.pending.clear();
  }
}
