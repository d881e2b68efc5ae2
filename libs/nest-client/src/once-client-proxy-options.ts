import { type MsPattern } from '@nestjs/microservices';
import { type OnceClientOptions } from '@once/sdk';
import { UnsupportedOptionError } from './proxy-errors';

/** Options of `OnceClientProxy`: the SDK's (see `OnceClientOptions`), plus `queries`. */
export interface OnceClientProxyOptions extends OnceClientOptions {
  /**
   * Patterns to send as QUERY (a read, not journaled) in addition to the
   * @Query patterns the node lists in its catalogue, which the proxy fetches
   * by itself. Needed only for a node too old to have a catalogue. Strings
   * or object patterns, compared after NestJS's normalisation. Default none.
   */
  readonly queries?: readonly MsPattern[];
}

/** NestJS client options that would change the wire format, refused at construction. */
const UNSUPPORTED = ['serializer', 'deserializer'] as const;

/**
 * Splits the proxy's options into the SDK's and the proxy's own, after
 * refusing what once cannot honour. `ClientsModule.register` passes any
 * object here, so a NestJS option that would be ignored is caught now, not
 * discovered later as a silent difference.
 */
export function splitProxyOptions(options: OnceClientProxyOptions): {
  sdk: OnceClientOptions;
  queries: readonly MsPattern[];
} {
  const given = (options ?? {}) as unknown as Record<string, unknown>;
  for (const option of UNSUPPORTED) {
    if (given[option] !== undefined) throw new UnsupportedOptionError(option);
  }
  const { queries = [], ...sdk } = options;
  return { sdk, queries };
}
