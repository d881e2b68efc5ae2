import { type Engine } from '@once/engine/internal';
import { type Frame, type Status } from '@once/protocol';
import { type GatewayConnection } from './gateway-connection';

/**
 * What the admission steps need of the gateway that runs them. The gateway
 * calls them only once the engine is open and ready.
 */
export interface AdmissionHost {
  readonly engine: Engine;
  /** Where refusals worth an operator's attention are logged. */
  readonly logger: { warn(message: string): void };
  /** The node takes requests (ready, not stopping) and, if given, `connection` is still open. */
  serving(connection?: GatewayConnection): boolean;
  /** Answers `frame` with a non-OK REPLY echoing it (nothing journaled). */
  answer(
    connection: GatewayConnection,
    frame: Frame,
    status: Status,
    message: string,
    watermark?: number,
  ): void;
}
