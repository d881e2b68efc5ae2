/**
 * The public API of `@once/gateway`: the `OnceServer` transport strategy and
 * its options. The request context, session guards and refusals a handler
 * meets are the programming model's: import them from `@once/framework`
 * (one import path per name).
 *
 * @packageDocumentation
 * @public
 */
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
