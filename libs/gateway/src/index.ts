// The request context, session guards and refusals live with the programming
// model in @once/framework; they are re-exported here, where a transport user looks.
export {
  type ConnectionView,
  EpochAheadException,
  EpochFenceGuard,
  GatewayException,
  InvalidRequestException,
  NotBoundException,
  OnceRpcContext,
  ResumeGuard,
  type SessionBinding,
  SessionEvictedException,
  type SessionGate,
} from '@once/framework';
export {
  GATEWAY_DEFAULTS,
  type GatewayOptions,
  type GatewayTlsOptions,
  InvalidGatewayOptionsError,
  NEST_TCP_OPTIONS,
  type ResolvedGatewayOptions,
  UnknownGatewayOptionError,
  UnsupportedGatewayOptionError,
} from './gateway-options';
export { OnceRuntimeMissingError, OnceServer } from './once-server';
