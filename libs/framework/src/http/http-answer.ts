import { httpErrorBody } from '@once/engine/internal';

/** What an `@Idempotent` route answers: a status, headers and the body's bytes (none when empty). */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer | undefined;
}

/** The content type of every body once answers: the recorded responses and its own errors are JSON. */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** An error answer of once's own: `{"code":…,"message":…}`, the shape of the recorded refusals. */
export function errorAnswer(
  status: number,
  code: string,
  message: string,
  headers: Readonly<Record<string, string>> = {},
): HttpAnswer {
  return { status, headers, body: httpErrorBody(code, message) };
}

/** The response object of Fastify (a `FastifyReply`), told from Express's by its members. */
interface FastifyReplyLike {
  readonly raw: unknown;
  code(status: number): unknown;
  header(name: string, value: string): unknown;
  send(payload?: unknown): unknown;
}

function isFastifyReply(response: unknown): response is FastifyReplyLike {
  const reply = response as Partial<FastifyReplyLike> | null;
  return (
    typeof reply?.code === 'function' &&
    typeof reply.header === 'function' &&
    typeof reply.send === 'function' &&
    typeof reply.raw === 'object'
  );
}

/** Node's (and Express's) response: what an Express response is underneath. */
interface NodeResponseLike {
  statusCode: number;
  setHeader(name: string, value: string | number): unknown;
  end(body?: Buffer): unknown;
}

/**
 * Sends `answer` on `response`, a Fastify reply or an Express (Node)
 * response, with the body's bytes exactly as given: no serializer, no
 * ETag, no charset rewrite, so a replay is the first answer byte for byte.
 */
export function sendHttpAnswer(response: unknown, answer: HttpAnswer): void {
  const { status, headers, body } = answer;
  if (isFastifyReply(response)) {
    response.code(status);
    for (const [name, value] of Object.entries(headers)) response.header(name, value);
    if (body === undefined || body.length === 0) {
      response.send();
      return;
    }
    response.header('content-type', JSON_CONTENT_TYPE);
    response.send(body);
    return;
  }
  const node = response as NodeResponseLike;
  node.statusCode = status;
  for (const [name, value] of Object.entries(headers)) node.setHeader(name, value);
  if (body === undefined || body.length === 0) {
    node.setHeader('content-length', 0);
    node.end();
    return;
  }
  node.setHeader('content-type', JSON_CONTENT_TYPE);
  node.setHeader('content-length', body.length);
  node.end(body);
}
