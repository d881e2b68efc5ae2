import { Logger } from '@nestjs/common';
import { type ApplyOutcome, type EndedSession } from '@once/engine/internal';
import { type SessionBinding } from '@once/framework';
import { type ClientId, EvictionReason } from '@once/protocol';
import { unaskedEviction } from './gateway-answers';
import { type GatewayConnection } from './gateway-connection';
import { answeringChecksum } from './request-checksum';
import { SessionBindings } from './session-bindings';

/** What the router needs of the node. */
export interface RouterNode {
  commitOp(): number;
  watermarkOf(client: ClientId): number;
  /** Journals that `client`'s holder went away (RELEASE), behind the session's admissions. */
  release(client: ClientId): void;
}

/**
 * Which connection hears what: bindings of connections to sessions, the
 * routing of committed replies to whichever connection holds the session
 * when they commit, and the EVICTIONs that tell connections their session
 * ended or moved.
 *
 * Invariant: at most one connection holds a session; a resume supersedes the
 * previous holder, a REGISTER fences it (see SessionBindings).
 */
export class ReplyRouter {
  private readonly logger = new Logger('OnceGateway');
  private readonly bindings = new SessionBindings<GatewayConnection>();

  constructor(private readonly node: RouterNode) {}

  /** Binds `connection` to a session it registered (the previous holder stays bound, fenced). */
  bind(connection: GatewayConnection, binding: SessionBinding): void {
    if (connection.binding) this.unbind(connection, connection.binding.client !== binding.client);
    this.bindings.bind(connection, binding);
  }

  /** Binds `connection` by its resume token; any other holder is sent EVICTION SUPERSEDED. */
  bindResumed(connection: GatewayConnection, binding: SessionBinding): void {
    const previous = this.bindings.holder(binding.client);
    if (previous && previous !== connection) {
      previous.send(
        unaskedEviction(
          binding.client,
          previous.binding?.epoch ?? 0,
          EvictionReason.Superseded,
          this.node.commitOp(),
          this.node.watermarkOf(binding.client),
        ),
      );
      this.unbind(previous, true);
      this.logger.log(
        `connection #${previous.id} superseded: client ${binding.client} resumed on connection #${connection.id}`,
      );
    }
    this.bind(connection, binding);
    this.logger.log(
      `connection #${connection.id} resumed client ${binding.client} epoch ${binding.epoch} with its token`,
    );
  }

  /**
   * Unbinds `connection`. With `release`, if it held its session, what the
   * session held while this connection lived is released by a journaled
   * entry, queued behind the session's admissions still on their way.
   */
  unbind(connection: GatewayConnection, release: boolean): void {
    const { binding, wasHolder } = this.bindings.unbind(connection);
    if (binding && wasHolder && release) this.node.release(binding.client);
  }

  /** The connection bound to (client, epoch) now: the holder, else the origin if it still is. */
  target(
    client: ClientId,
    epoch: number,
    origin: GatewayConnection,
  ): GatewayConnection | undefined {
    const holder = this.bindings.holder(client);
    if (holder && holder.binding?.epoch === epoch) return holder;
    if (!origin.closed && origin.binding?.client === client && origin.binding.epoch === epoch)
      return origin;
    return undefined;
  }

  /**
   * Sends a committed COMMAND or LOGOUT reply to the session's holder (nobody
   * holding it: a retry gets the cached reply), then tells every other
   * connection bound to a session the entry ended (EVICTED, LOGGED_OUT,
   * EXPIRED) and unbinds them. An EVICTION answer unbinds its receiver.
   */
  deliver(
    outcome: ApplyOutcome,
    origin: GatewayConnection | undefined,
    requestChecksum?: Uint8Array,
  ): void {
    let answered: GatewayConnection | undefined;
    if (origin && outcome.reply) {
      const { entry } = outcome;
      answered = this.target(entry.client, entry.session, origin);
      // An entry that kept no body checksum (a secret body): the reply carries the request's.
      const reply =
        requestChecksum === undefined
          ? outcome.reply
          : answeringChecksum(outcome.reply, requestChecksum);
      answered?.send(reply);
      if (answered && outcome.eviction !== undefined) this.unbind(answered, false);
    }
    for (const ended of outcome.endedSessions) this.endSession(ended, outcome.entry.op, answered);
  }

  /** The engine already released what the session held; its connections are told and unbound. */
  private endSession(
    ended: EndedSession,
    commit: number,
    answered: GatewayConnection | undefined,
  ): void {
    for (const connection of this.bindings.boundTo(ended.client)) {
      if (connection !== answered) {
        connection.send(
          unaskedEviction(
            ended.client,
            connection.binding?.epoch ?? ended.epoch,
            ended.reason,
            commit,
            ended.watermark,
          ),
        );
      }
      this.bindings.unbind(connection);
    }
  }
}
