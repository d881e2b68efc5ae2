import { type MsPattern } from '@nestjs/microservices';
import { transformPatternToRoute } from './nest/nest-internals';

/**
 * A pattern as `@Command`, `@Query` and `@Admit` take it: a name
 * (`'ledger.deposit'`) or an object (`{ cmd: 'sum' }`), as NestJS's
 * `@MessagePattern` does.
 */
export type OncePattern = string | Readonly<Record<string, unknown>>;

/**
 * The string a pattern is registered, journaled and looked up under: NestJS's
 * own route of it (`transformPatternToRoute`, the normalisation its servers
 * apply), so an object pattern is its JSON with sorted keys (`{"cmd":"sum"}`)
 * and a client that sends that string, or an object NestJS normalises to it,
 * reaches the handler.
 */
export function routeOf(pattern: OncePattern): string {
  return typeof pattern === 'string' ? pattern : transformPatternToRoute(pattern as MsPattern);
}

/** How messages quote a route: a name in quotes, an object route as written. */
export function patternLabel(route: string): string {
  return route.startsWith('{') ? route : `'${route}'`;
}
