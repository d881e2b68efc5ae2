import { Logger } from '@nestjs/common';
import { Status } from '@once/protocol';
import { type GatewayConnection } from './gateway-connection';

export interface SweepLimits {
  readonly writeBufferBytesMax: number;
  readonly partialFrameTimeoutMs: number;
  readonly idleUnboundTimeoutMs: number;
  readonly unboundTimeoutMs: number;
}

/**
 * Closes connections that hold an incomplete frame too long (BAD_FRAME),
 * idle without a session, or without a session for `unboundTimeoutMs`
 * whatever they send: a peer must not hold a connection slot and a decoder
 * buffer by sending nothing, nor by sending PINGs and never registering.
 *
 * And connections that leave more than `writeBufferBytesMax` of replies
 * unread at two passes in a row. The connection checks the limit itself
 * when a new turn's replies begin, which a peer escapes by asking for every
 * reply in one write (all of them are then written in one turn, and none
 * after it): without this pass, such a peer holds all of them in the node's
 * memory for as long as it keeps the connection open. Two passes, not one,
 * so that a peer that reads had a whole interval to take a large burst.
 *
 * Runs on an unref'd timer, a few times per shortest limit (at least once a second).
 */
export class SlowPeerSweep {
  private readonly logger = new Logger('OnceGateway');
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly connections: () => Iterable<GatewayConnection>,
    private readonly limits: SweepLimits,
  ) {
    const everyMs = Math.max(
      10,
      Math.min(
        1000,
        limits.partialFrameTimeoutMs / 4,
        limits.idleUnboundTimeoutMs / 4,
        limits.unboundTimeoutMs / 4,
      ),
    );
    this.timer = setInterval(() => this.sweep(), everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private sweep(): void {
    const now = Date.now();
    const { writeBufferBytesMax, partialFrameTimeoutMs, idleUnboundTimeoutMs, unboundTimeoutMs } =
      this.limits;
    for (const connection of this.connections()) {
      if (connection.closed) continue;
      const unread = connection.unreadReplyBytes;
      const overWriteLimit = unread > writeBufferBytesMax;
      if (overWriteLimit && connection.overWriteLimitAtSweep) {
        this.logger.warn(
          `connection #${connection.id} from ${connection.remote}: ${unread} reply bytes left unread, more than writeBufferBytesMax (${writeBufferBytesMax}); closing`,
        );
        connection.destroy();
        continue;
      }
      connection.overWriteLimitAtSweep = overWriteLimit;
      // Unbound since it opened, or since the sweep first saw it lose its session.
      if (connection.binding) connection.unboundSinceMs = 0;
      else if (connection.unboundSinceMs === 0) connection.unboundSinceMs = now;
      if (
        connection.partialSinceMs > 0 &&
        now - connection.partialSinceMs > partialFrameTimeoutMs
      ) {
        this.logger.warn(
          `connection #${connection.id} from ${connection.remote}: incomplete frame held too long; closing`,
        );
        connection.failPartialFrame(
          `incomplete frame: not finished within ${partialFrameTimeoutMs} ms`,
          Status.BadFrame,
        );
      } else if (!connection.binding && now - connection.lastActivityMs > idleUnboundTimeoutMs) {
        this.logger.debug?.(
          `connection #${connection.id} from ${connection.remote}: idle without a session; closing`,
        );
        connection.end();
      } else if (!connection.binding && now - connection.unboundSinceMs > unboundTimeoutMs) {
        this.logger.debug?.(
          `connection #${connection.id} from ${connection.remote}: no session within ${unboundTimeoutMs} ms; closing`,
        );
        connection.end();
      }
    }
  }
}
