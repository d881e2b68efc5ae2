import { type Frame, type FrameHeader } from '@once/protocol';
import { parseRegistration } from './registration-reply';

function registerReply(body: unknown): Frame {
  const raw = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  return { header: {} as FrameHeader, raw, body: raw };
}

const TOKEN = '00112233445566778899aabbccddeeff';

describe('parseRegistration', () => {
  it('reads the four fields of an OK REGISTER reply, the token as 16 bytes', () => {
    expect(
      parseRegistration(registerReply({ userId: 2, epoch: 9, watermark: 0, resumeToken: TOKEN })),
    ).toEqual({ userId: 2, epoch: 9, watermark: 0, resumeToken: Buffer.from(TOKEN, 'hex') });
  });

  it.each([
    ['not JSON', '{'],
    ['no token', { userId: 2, epoch: 9, watermark: 0 }],
    ['epoch 0', { userId: 2, epoch: 0, watermark: 0, resumeToken: TOKEN }],
    ['a negative watermark', { userId: 2, epoch: 9, watermark: -1, resumeToken: TOKEN }],
    ['a short token', { userId: 2, epoch: 9, watermark: 0, resumeToken: 'abcd' }],
    ['null', 'null'],
  ])('refuses a body with %s', (_, body) => {
    expect(parseRegistration(registerReply(body))).toBeUndefined();
  });
});
