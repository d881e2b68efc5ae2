export { EpochFenceGuard } from './guards/epoch-fence.guard';
export { ResumeGuard } from './guards/resume.guard';
export { EpochAheadException } from './exceptions/epoch-ahead.exception';
export { GatewayException } from './exceptions/gateway.exception';
export { InvalidRequestException } from './exceptions/invalid-request.exception';
export { NotBoundException } from './exceptions/not-bound.exception';
export { SessionEvictedException } from './exceptions/session-evicted.exception';
export {
  GATEWAY_DEFAULTS,
  type GatewayOptions,
  type GatewayTlsOptions,
  InvalidGatewayOptionsError,
  type ResolvedGatewayOptions,
} from './gateway-options';
export { type ConnectionView, OnceRpcContext } from './once-rpc-context';
export { OnceRuntimeMissingError, OnceServer } from './once-server';
export { type SessionBinding } from './session-binding';
export { type SessionGate } from './session-gate';
