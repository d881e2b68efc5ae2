import { randomUUID } from 'node:crypto';
import { HTTP_CODE_METADATA } from '../nest/nest-internals';
import { type HttpResponseRecord, IDEMPOTENCY_KEY_REUSED } from '@once/engine/internal';
import { type HttpAnswer, errorAnswer, sendHttpAnswer } from './http-answer';
import { journaledArguments } from './http-param-layout';
import { type HttpNode, httpHostOf } from './http-node';
import { principalOfRequestUser, ANONYMOUS } from './http-principal';
import { type HttpRoute, httpRouteOf } from './http-route';
import { DEFAULT_KEY_MAX_LENGTH, readIdempotencyKey } from './idempotency-key';
import { type IdempotentMetadata } from './idempotent.decorator';
import { requestFingerprint } from './request-fingerprint';

/** The response header that says whether the body is a replay of the first response. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** The response header of a 503 on a follower: the leader's advertised address, when known. */
export const LEADER_HEADER = 'Once-Leader';

/** Seconds a client waits before it retries a 409 or a 503. */
const RETRY_AFTER = '1';

const routes = new WeakMap<object, HttpRoute>();

/**
 * The admission of one request to an `@Idempotent` route, after NestJS ran
 * its guards, interceptors and pipes (`args` are the resolved arguments):
 * reads the key, checks that this node takes writes, and submits the
 * request to the engine, which applies it once per key and fingerprint;
 * then answers on `response` what the engine recorded (or why nothing was).
 *
 * Order: a bad key is the client's to fix anywhere (400), so it is checked
 * first; then whether this node may journal (503); only then is anything
 * journaled.
 */
export async function admitHttpRequest(
  controller: object,
  handler: object,
  metadata: IdempotentMetadata,
  args: readonly unknown[],
  request: unknown,
  response: unknown,
): Promise<void> {
  sendHttpAnswer(response, await answerFor(controller, handler, metadata, args, request));
}

/** What {@link admitHttpRequest} answers, before it is sent. */
export async function answerFor(
  controller: object,
  handler: object,
  metadata: IdempotentMetadata,
  args: readonly unknown[],
  request: unknown,
): Promise<HttpAnswer> {
  const host = httpHostOf(controller);
  const options = host?.httpOptions ?? {};
  const reading = readIdempotencyKey(
    headerOf(request, 'idempotency-key'),
    options.keyMaxLength ?? DEFAULT_KEY_MAX_LENGTH,
  );
  if (reading.kind === 'invalid') {
    return errorAnswer(400, 'IDEMPOTENCY_KEY_INVALID', reading.reason);
  }
  const keyed = reading.kind === 'key';
  if (!keyed && metadata.options.required !== false) {
    return errorAnswer(
      400,
      'IDEMPOTENCY_KEY_MISSING',
      'this route is exactly once: send an Idempotency-Key header (a new unique key per request, the same key on its retries)',
    );
  }
  const node = host?.httpNode();
  if (!node?.serving) {
    const phase = node?.phase ?? 'opening';
    return errorAnswer(503, 'NOT_READY', `the node is ${phase}; retry later`, {
      'Retry-After': RETRY_AFTER,
    });
  }
  if (!node.writable) return notLeaderAnswer(node);

  const route = routeOf(controller, handler);
  const principal = (options.principal ?? principalOfRequestUser)(request) ?? ANONYMOUS;
  // JSON, as the journal will hold it: the fingerprint and the apply step see the same data.
  const data = JSON.parse(JSON.stringify(journaledArguments(metadata.layout, args))) as unknown;
  const scope = `${principal.name}|${route.method} ${route.path}`;
  const draft = {
    // A request without a key is a request of its own, never found again.
    scope: keyed ? scope : `${scope}|unkeyed`,
    key: keyed ? reading.key : randomUUID(),
    fingerprint: requestFingerprint(route.method, route.path, data),
    userId: principal.userId,
    pattern: route.pattern,
    data,
    status: successStatus(handler, route),
    refusalStatus: metadata.options.refusalStatus ?? 422,
  };
  let result;
  try {
    result = await node.submitHttp(draft, { waitInFlight: metadata.options.inFlight === 'wait' });
  } catch (error) {
    return unavailableAnswer(error, node);
  }
  switch (result.kind) {
    case 'applied':
      return recordedAnswer(result.response, false);
    case 'replayed':
      return recordedAnswer(result.response, true);
    case 'refused':
      // The route's @Admit step said no: answered, not recorded; a retry runs it again.
      return recordedAnswer(result.response, false);
    case 'mismatch':
      // Worded as the engine's answer when the reuse is found at apply instead (a new leader).
      return errorAnswer(
        422,
        IDEMPOTENCY_KEY_REUSED,
        'this Idempotency-Key was used for another request; use a new key for a new request',
      );
    case 'in-flight':
      return errorAnswer(
        409,
        'IDEMPOTENCY_KEY_IN_FLIGHT',
        'a request with this Idempotency-Key is being processed; retry it later for its response',
        { 'Retry-After': RETRY_AFTER },
      );
  }
}

function recordedAnswer(response: HttpResponseRecord, replayed: boolean): HttpAnswer {
  return {
    status: response.status,
    headers: { [REPLAYED_HEADER]: String(replayed) },
    body: response.body.length > 0 ? response.body : undefined,
  };
}

/**
 * 503 on a node that may not journal: a follower, or a cluster between
 * leaders. A load balancer retries another backend on a 503; the leader's
 * address helps one that routes by it.
 */
function notLeaderAnswer(node: HttpNode): HttpAnswer {
  const headers: Record<string, string> = { 'Retry-After': RETRY_AFTER };
  if (node.leader !== null) headers[LEADER_HEADER] = node.leader;
  const message =
    node.leader === null
      ? 'this node does not lead its cluster and knows no leader; retry later'
      : `this node is a follower; the leader is at ${node.leader}`;
  return errorAnswer(503, 'NOT_LEADER', message, headers);
}

/** What a submission that the journal refused gets: nothing was journaled, the client retries. */
function unavailableAnswer(error: unknown, node: HttpNode): HttpAnswer {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'NOT_LEADER' || !node.writable) return notLeaderAnswer(node);
  if (code === 'ENGINE_UNAVAILABLE') {
    const message = error instanceof Error ? error.message : String(error);
    return errorAnswer(503, 'ENGINE_UNAVAILABLE', message, { 'Retry-After': RETRY_AFTER });
  }
  throw error;
}

function routeOf(controller: object, handler: object): HttpRoute {
  let route = routes.get(handler);
  if (!route) {
    route = httpRouteOf(controller.constructor, handler, controller.constructor.name);
    routes.set(handler, route);
  }
  return route;
}

/** `@HttpCode(status)` when given; else NestJS's default, 201 for a POST and 200 otherwise. */
function successStatus(handler: object, route: HttpRoute): number {
  const declared = Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined;
  return declared ?? (route.method === 'POST' ? 201 : 200);
}

/** A request header, from an Express or a Fastify request (both carry Node's `headers`). */
function headerOf(request: unknown, name: string): string | string[] | undefined {
  return (request as { headers?: Record<string, string | string[] | undefined> } | null)?.headers?.[
    name
  ];
}
