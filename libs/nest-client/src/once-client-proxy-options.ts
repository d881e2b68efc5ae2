import { type MsPattern } from '@nestjs/microservices';
import { type OnceClientOptions } from '@once/sdk';
import { type ConnectionOptions } from 'node:tls';
import { NEST_CLIENT_OPTIONS } from './nest-client-options';
import { UnknownOptionError, UnsupportedOptionError } from './proxy-errors';

/** Options of `OnceClientProxy`: the SDK's (see `OnceClientOptions`), plus `queries` and `tlsOptions`. */
export interface OnceClientProxyOptions extends OnceClientOptions {
  /**
   * Patterns to send as QUERY (a read, not journaled) in addition to the
   * `@Query` patterns the node lists in its catalogue, which the proxy fetches
   * by itself. Needed only for a node too old to have a catalogue. Strings
   * or object patterns, compared after NestJS's normalisation. Default none.
   */
  readonly queries?: readonly MsPattern[];
  /**
   * NestJS's TCP client option, honoured: connect with TLS, these options
   * passed to `tls.connect` (`ca`, `cert`, `key`, `servername`,
   * `rejectUnauthorized`, ...), exactly as the SDK's `tls` object. Give this
   * or `tls`, not both. Default: plain TCP.
   */
  readonly tlsOptions?: ConnectionOptions;
}

/**
 * Every option of the SDK's `OnceClientOptions`, deprecated names included,
 * so an unknown key is refused rather than passed on and ignored. The type check below fails when
 * the SDK gains an option this list lacks.
 */
const SDK_OPTION_NAMES = [
  'host',
  'port',
  'nodes',
  'learnNodes',
  'trustLeaderHints',
  'logger',
  'onEvent',
  'username',
  'password',
  'clientId',
  'identityFile',
  'inFlightMax',
  'queuedMax',
  'requestTimeoutMs',
  'reconnect',
  'connectTimeoutMs',
  'frameBytesMax',
  'tls',
  // The deprecated names the SDK still accepts (and maps, with a warning):
  // passed on, not refused as unknown.
  'maxInFlight',
  'maxQueued',
  'maxFrameBytes',
] as const satisfies ReadonlyArray<keyof OnceClientOptions>;

/** Compile-time: every key of OnceClientOptions is in SDK_OPTION_NAMES. */
type MissingSdkOptions = Exclude<keyof OnceClientOptions, (typeof SDK_OPTION_NAMES)[number]>;
const everySdkOptionListed: [MissingSdkOptions] extends [never] ? true : MissingSdkOptions = true;
void everySdkOptionListed;

const KNOWN_OPTIONS: ReadonlySet<string> = new Set([...SDK_OPTION_NAMES, 'queries', 'tlsOptions']);

/**
 * Splits the proxy's options into the SDK's and the proxy's own, after
 * refusing what once cannot honour. `ClientsModule.register` passes any
 * object here, so a NestJS option that would be ignored is caught now, not
 * discovered later as a silent difference (TLS configured the NestJS way and
 * a plain-TCP connection, say).
 */
export function splitProxyOptions(options: OnceClientProxyOptions): {
  sdk: OnceClientOptions;
  queries: readonly MsPattern[];
} {
  const given = (options ?? {}) as unknown as Record<string, unknown>;
  for (const [option, value] of Object.entries(given)) {
    if (value === undefined) continue;
    if (Object.hasOwn(NEST_CLIENT_OPTIONS, option)) throw new UnsupportedOptionError(option);
    if (!KNOWN_OPTIONS.has(option)) throw new UnknownOptionError(option, [...KNOWN_OPTIONS]);
  }
  const { queries = [], tlsOptions, ...sdk } = options;
  if (tlsOptions !== undefined) {
    if (sdk.tls !== undefined) {
      throw new UnsupportedOptionError(
        'tlsOptions beside tls',
        'each turns TLS on with its own options; give one of them',
      );
    }
    if (typeof tlsOptions !== 'object' || tlsOptions === null) {
      throw new UnsupportedOptionError(
        'tlsOptions that is not an object',
        'give the tls.connect options ({ ca, servername, ... })',
      );
    }
    return { sdk: { ...sdk, tls: tlsOptions }, queries };
  }
  return { sdk, queries };
}
