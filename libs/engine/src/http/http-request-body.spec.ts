import { EntryKind, InvalidEntryError } from '@once/journal';
import { ZERO_CLIENT_ID } from '@once/protocol/internal';
import {
  decodeHttpRequestBody,
  encodeHttpRequestBody,
  httpRequestEntryDraft,
  scopedKeyOf,
} from './http-request-body';
import { type HttpRequestDraft } from './http-request';

const REQUEST: HttpRequestDraft = {
  scope: 'user 7|POST /ledger/deposit',
  key: 'abc-1',
  fingerprint: Buffer.alloc(16, 9),
  userId: 7,
  pattern: 'http:POST /ledger/deposit',
  data: { body: { amount: 5 }, params: {} },
  status: 201,
  refusalStatus: 422,
};

describe('the HTTP_REQUEST entry body', () => {
  it('is JSON text with the fields in the format order', () => {
    expect(encodeHttpRequestBody(REQUEST).toString()).toBe(
      '{"scope":"user 7|POST /ledger/deposit","key":"abc-1","pattern":"http:POST /ledger/deposit","data":{"body":{"amount":5},"params":{}},"status":201,"refusalStatus":422}',
    );
  });

  it('reads back what it wrote, data absent as null', () => {
    expect(decodeHttpRequestBody(encodeHttpRequestBody(REQUEST))).toEqual({
      scope: REQUEST.scope,
      key: REQUEST.key,
      pattern: REQUEST.pattern,
      data: REQUEST.data,
      status: 201,
      refusalStatus: 422,
    });
    const none = decodeHttpRequestBody(encodeHttpRequestBody({ ...REQUEST, data: undefined }));
    expect(none?.data).toBeNull();
  });

  it.each([
    ['not JSON', '{'],
    ['not an object', '[1]'],
    ['null', 'null'],
    ['a missing key', '{"scope":"s","pattern":"p","data":1,"status":200,"refusalStatus":422}'],
    [
      'a status out of range',
      '{"scope":"s","key":"k","pattern":"p","status":99,"refusalStatus":422}',
    ],
    [
      'a fractional status',
      '{"scope":"s","key":"k","pattern":"p","status":200.5,"refusalStatus":422}',
    ],
    [
      'a refusal status as text',
      '{"scope":"s","key":"k","pattern":"p","status":200,"refusalStatus":"422"}',
    ],
  ])('reads nothing from %s (never throws)', (_what, text) => {
    expect(decodeHttpRequestBody(Buffer.from(text))).toBeUndefined();
  });

  it('builds the journal draft: no client, the fingerprint as the request checksum', () => {
    const draft = httpRequestEntryDraft(REQUEST);
    expect(draft).toEqual({
      kind: EntryKind.HttpRequest,
      client: ZERO_CLIENT_ID,
      session: 0,
      request: 0,
      userId: 7,
      requestChecksum: REQUEST.fingerprint,
      body: encodeHttpRequestBody(REQUEST),
    });
  });

  it('refuses a fingerprint that is not 16 bytes and a status that is not one, before journaling', () => {
    expect(() => httpRequestEntryDraft({ ...REQUEST, fingerprint: Buffer.alloc(15) })).toThrow(
      InvalidEntryError,
    );
    expect(() => httpRequestEntryDraft({ ...REQUEST, status: 600 })).toThrow(InvalidEntryError);
    expect(() => httpRequestEntryDraft({ ...REQUEST, refusalStatus: 0 })).toThrow(
      InvalidEntryError,
    );
  });

  it('scopes a key after the last newline (a header value holds none)', () => {
    expect(scopedKeyOf(REQUEST)).toBe('user 7|POST /ledger/deposit\nabc-1');
  });
});
