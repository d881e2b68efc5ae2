import { type HttpPrincipal } from './http-principal';

/** Options of the `@Idempotent` routes of an application: `OnceModule.forRoot({ http: {...} })`. */
export interface OnceHttpOptions {
  /** The longest `Idempotency-Key` accepted, in characters (a longer one is answered 400). Default 255. */
  readonly keyMaxLength?: number;
  /**
   * Who sends a request: the principal its keys are scoped to, and the user
   * id its journal entry carries (`ctx.userId`). Return `undefined` for an
   * anonymous request. Called live, after the route's guards, so an
   * authentication guard has set what it reads. Default: `request.user`
   * (see `principalOfRequestUser`): its `id`, `sub` or `userId`, or itself
   * when a string or a number.
   */
  readonly principal?: (request: unknown) => HttpPrincipal | undefined;
}
