import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '../nest/nest-internals';

/** The prefix of an `@Idempotent` route's command pattern. */
export const HTTP_PATTERN_PREFIX = 'http:';

/** The methods an `@Idempotent` route may answer: those that change something. */
const WRITE_METHODS: ReadonlyMap<number, string> = new Map([
  [RequestMethod.POST, 'POST'],
  [RequestMethod.PUT, 'PUT'],
  [RequestMethod.PATCH, 'PATCH'],
  [RequestMethod.DELETE, 'DELETE'],
]);

/** An `@Idempotent` route: its method, its path template and its command pattern. */
export interface HttpRoute {
  /** `POST`, `PUT`, `PATCH` or `DELETE`. */
  readonly method: string;
  /** The controller's path and the method's, joined: `/ledger/:id/deposit`. */
  readonly path: string;
  /** `http:<method> <path>`: the command pattern the route's apply step is registered under. */
  readonly pattern: string;
}

/** Raised when an `@Idempotent` method is not a route once can serve. */
export class IdempotentRouteError extends Error {
  readonly code = 'HANDLER_DISCOVERY';
}

/**
 * The route `controller.prototype[methodKey]` (decorated `handler`) answers,
 * from what `@Controller(path)` and `@Post(path)` (or `@Put`, `@Patch`,
 * `@Delete`) recorded. Read at discovery, when the class decorator has run.
 *
 * The pattern names the route as the code declares it, without the
 * application's global prefix or version, so the journal does not change
 * when those do; a controller or route with several paths is named by its
 * first. Throws for a method without a route decorator, or a read method.
 */
export function httpRouteOf(controller: object, handler: object, owner: string): HttpRoute {
  const verb = Reflect.getMetadata(METHOD_METADATA, handler) as number | undefined;
  const routePath = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
  if (verb === undefined || routePath === undefined) {
    throw new IdempotentRouteError(
      `${owner}: @Idempotent() needs a route decorator (@Post, @Put, @Patch or @Delete) on the method`,
    );
  }
  const method = WRITE_METHODS.get(verb);
  if (method === undefined) {
    throw new IdempotentRouteError(
      `${owner}: @Idempotent() applies to a POST, PUT, PATCH or DELETE route, not ${RequestMethod[verb]}: a read changes nothing to make exactly once`,
    );
  }
  const base = Reflect.getMetadata(PATH_METADATA, controller) as string | string[] | undefined;
  const path = joinPaths(first(base), first(routePath));
  return { method, path, pattern: `${HTTP_PATTERN_PREFIX}${method} ${path}` };
}

function first(path: string | string[] | undefined): string {
  return (Array.isArray(path) ? path[0] : path) ?? '';
}

/** `'ledger'` and `'/:id/deposit/'` → `/ledger/:id/deposit`; `''` and `'/'` → `/`. */
function joinPaths(...parts: string[]): string {
  const segments = parts.flatMap((part) => part.split('/')).filter((segment) => segment !== '');
  return `/${segments.join('/')}`;
}
