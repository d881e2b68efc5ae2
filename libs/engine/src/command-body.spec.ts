import { decodeCommandBody, encodeCommandBody } from './command-body';

describe('decodeCommandBody', () => {
  it('reads a Buffer, a plain Uint8Array and a view inside a larger buffer alike, UTF-8 included', () => {
    const body = encodeCommandBody({ pattern: 'notes.add', data: { text: 'zürich ✓ 東京' } });
    const framed = Buffer.concat([Buffer.from('header'), body, Buffer.from('tail')]);
    const inside = framed.subarray(6, 6 + body.length);
    const plain = new Uint8Array(body);
    const expected = { pattern: 'notes.add', data: { text: 'zürich ✓ 東京' } };
    expect(decodeCommandBody(body)).toEqual(expected);
    expect(decodeCommandBody(inside)).toEqual(expected);
    expect(decodeCommandBody(plain)).toEqual(expected);
    expect(
      decodeCommandBody(new Uint8Array(framed.buffer, framed.byteOffset + 6, body.length)),
    ).toEqual(expected);
  });

  it('reads a refusal back, and nothing from bytes that are not a command body', () => {
    const refusal = { code: 'FORBIDDEN', message: 'no' };
    expect(decodeCommandBody(encodeCommandBody({ pattern: 'p', refusal }))).toEqual({
      pattern: 'p',
      refusal,
    });
    expect(decodeCommandBody(Buffer.from('[1,2]'))).toBeUndefined();
    expect(decodeCommandBody(Buffer.from('{"data":1}'))).toBeUndefined();
    expect(decodeCommandBody(Buffer.from('!{"pattern":"p"}'))).toBeUndefined();
    expect(decodeCommandBody(new Uint8Array([0xff, 0xfe]))).toBeUndefined();
  });
});
