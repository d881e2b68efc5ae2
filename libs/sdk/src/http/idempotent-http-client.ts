import { InvalidOptionsError } from '../errors/invalid-options.error';
import { idempotentRequest } from './idempotent-request';
import { type IdempotentRequestInit } from './idempotent-request-init';
import { type IdempotentRequestOptions } from './idempotent-request-options';
import { idempotentRequestSettings } from './idempotent-request-settings';
import { type IdempotentResponse } from './idempotent-response';

/**
 * The options of an {@link IdempotentHttpClient}: where the service is, the
 * headers of every request, and the retry policy of
 * {@link IdempotentRequestOptions} (same defaults).
 */
export interface IdempotentHttpClientOptions extends IdempotentRequestOptions {
  /**
   * The service's base URL; a request's path is resolved against it
   * (`new URL(path, baseUrl)`), so `'/ledger/deposit'` replaces its path and
   * `'ledger/deposit'` appends to a base ending in `/`. Required.
   */
  readonly baseUrl: string;
  /**
   * Headers sent with every request (authorization, say); a request's own
   * headers win. Not `Idempotency-Key`. Default: none.
   */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A request of the client: {@link IdempotentRequestInit}, plus per-request retry options. */
export interface IdempotentHttpClientRequest extends IdempotentRequestInit {
  /** Overrides the client's retry options for this request. Default: the client's. */
  readonly retry?: IdempotentRequestOptions;
}

/**
 * A client for the idempotent endpoints of one HTTP service: every call is one
 * logical operation with its own `Idempotency-Key`, kept across its retries
 * (see {@link idempotentRequest} for what is retried and what is returned).
 *
 * It holds no connection of its own (the global `fetch` pools them) and no
 * state between calls: one client can serve a whole application.
 *
 * ```ts
 * const ledger = new IdempotentHttpClient({ baseUrl: 'http://ledger:3000' });
 * const { status, body, replayed } = await ledger.post('/ledger/deposit', { account: 'a', amount: 5 });
 * ```
 */
export class IdempotentHttpClient {
  private readonly base: URL;

  constructor(private readonly options: IdempotentHttpClientOptions) {
    if (typeof options?.baseUrl !== 'string' || !URL.canParse(options.baseUrl)) {
      throw new InvalidOptionsError(`baseUrl must be an absolute URL, not ${options?.baseUrl}`);
    }
    this.base = new URL(options.baseUrl);
    idempotentRequestSettings(options); // refuse unusable options now, not at the first call
  }

  /** Sends one operation to `path` (method default POST). */
  request(path: string, init: IdempotentHttpClientRequest = {}): Promise<IdempotentResponse> {
    const { retry, headers, ...rest } = init;
    const { baseUrl: _baseUrl, headers: common, ...policy } = this.options;
    return idempotentRequest(
      new URL(path, this.base),
      { ...rest, headers: { ...common, ...headers } },
      { ...policy, ...retry },
    );
  }

  /** POSTs `body` (JSON unless a string or bytes) to `path`. */
  post(
    path: string,
    body?: unknown,
    init: Omit<IdempotentHttpClientRequest, 'method' | 'body'> = {},
  ): Promise<IdempotentResponse> {
    return this.request(path, { ...init, method: 'POST', body });
  }

  /** PUTs `body` to `path`. */
  put(
    path: string,
    body?: unknown,
    init: Omit<IdempotentHttpClientRequest, 'method' | 'body'> = {},
  ): Promise<IdempotentResponse> {
    return this.request(path, { ...init, method: 'PUT', body });
  }

  /** PATCHes `path` with `body`. */
  patch(
    path: string,
    body?: unknown,
    init: Omit<IdempotentHttpClientRequest, 'method' | 'body'> = {},
  ): Promise<IdempotentResponse> {
    return this.request(path, { ...init, method: 'PATCH', body });
  }

  /** DELETEs `path`. */
  delete(
    path: string,
    init: Omit<IdempotentHttpClientRequest, 'method'> = {},
  ): Promise<IdempotentResponse> {
    return this.request(path, { ...init, method: 'DELETE' });
  }
}
