/**
 * How a node proves who it is to its NATS servers, and how it checks
 * theirs. At most one way to authenticate (user and password, token, nkey,
 * or creds); TLS may come with any of them. Secrets are given as values
 * here, read from their files by {@link readNatsSecurity}; they are never
 * logged (see `redactSecrets` of `@once/settings`).
 */
export interface NatsSecurityOptions {
  /** User name (`ONCE_NATS_USER`), with `password`. Default: none. */
  readonly user?: string;
  /** The user's password (`ONCE_NATS_PASSWORD[_FILE]`). Default: none. */
  readonly password?: string;
  /** An authentication token (`ONCE_NATS_TOKEN[_FILE]`). Default: none. */
  readonly token?: string;
  /** A user nkey seed, `SU…` (`ONCE_NATS_NKEY_SEED_FILE`): the server's nonce is signed with it. Default: none. */
  readonly nkeySeed?: string;
  /** A creds file's text, user JWT and seed (`ONCE_NATS_CREDS_FILE`). Default: none. */
  readonly creds?: string;
  /** TLS towards the servers. Default: none, unless a server URL is `tls://`. */
  readonly tls?: NatsTlsOptions;
}

/**
 * TLS towards the NATS servers. Any field set (or a `tls://` server URL)
 * makes TLS required: the node refuses a server that does not offer it.
 * The servers' certificates are always verified.
 */
export interface NatsTlsOptions {
  /** PEM CA bundle to verify the servers against. Default: Node's trusted CAs. */
  readonly ca?: string;
  /** PEM client certificate, for servers that verify clients (`verify: true`). Default: none. */
  readonly cert?: string;
  /** PEM private key of `cert`. Default: none. */
  readonly key?: string;
  /** The name the servers' certificates must carry. Default: the host of the URL dialled. */
  readonly serverName?: string;
}
