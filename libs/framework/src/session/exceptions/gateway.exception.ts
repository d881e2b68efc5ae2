import { RpcException } from '@nestjs/microservices';

/**
 * A refusal the gateway answers with a protocol frame instead of running the
 * request. Guards throw these; the gateway turns each into the exact frame
 * PROTOCOL.md names.
 */
export abstract class GatewayException extends RpcException {
  abstract readonly code: string;
}
