/** One answer as the client received it: the body's bytes, not a parse of them. */
export interface HttpLedgerAnswer {
  readonly status: number;
  readonly headers: Headers;
  /** `Idempotent-Replayed`: whether the body is a replay of the first response. */
  readonly replayed: string | null;
  readonly retryAfter: string | null;
  readonly body: Buffer;
}

/** A JSON POST to `url` with `headers` (an `idempotency-key`, say) over the content type. */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<HttpLedgerAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    replayed: response.headers.get('idempotent-replayed'),
    retryAfter: response.headers.get('retry-after'),
    body: Buffer.from(await response.arrayBuffer()),
  };
}

/** An account of the HTTP ledger at `url`, as that node has applied it. */
export async function readAccount(
  url: string,
  id: string,
): Promise<{ balance: number; applied: number }> {
  const response = await fetch(`${url}/ledger/accounts/${id}`);
  return (await response.json()) as { balance: number; applied: number };
}
