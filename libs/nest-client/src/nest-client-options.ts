/**
 * NestJS TCP client options (`TcpClientOptions['options']`, NestJS 11, and
 * the retry options of its other transports) that the proxy does not serve,
 * each with what to use instead. None is mapped silently: their units and
 * meaning differ from the SDK's nearest options.
 */
export const NEST_CLIENT_OPTIONS = {
  serializer:
    "once's wire format is fixed (JSON bodies in checksummed protocol frames, journaled and replayed byte for byte); transform the data before send() or emit(), and the result after, instead",
  deserializer:
    "once's wire format is fixed (JSON bodies in checksummed protocol frames, journaled and replayed byte for byte); transform the data before send() or emit(), and the result after, instead",
  maxBufferSize:
    'the once client bounds each frame in bytes, not a character buffer; set frameBytesMax',
  incompleteMessageTimeout:
    'the once client has no partial-message timer; requestTimeoutMs bounds each request and connectTimeoutMs each connection attempt',
  maxSendBufferSize:
    'the once client bounds what waits to be sent by requests, not bytes; set queuedMax (and inFlightMax)',
  socketClass:
    'the once client speaks the once protocol over its own connection; for TLS give tlsOptions or tls',
  retryAttempts:
    'the once client reconnects and resumes its session by itself; set reconnect: { attemptsMax }',
  retryDelay:
    'the once client reconnects with a growing delay; set reconnect: { initialDelayMs, delayMsMax }',
} as const;
