import { Command, Operation } from '@once/protocol';
import { decodeHeader, encodeFrame } from '@once/protocol/internal';
import { answeringChecksum } from './request-checksum';

describe('answeringChecksum', () => {
  const reply = (requestChecksum: Buffer) =>
    encodeFrame(
      { command: Command.Reply, operation: Operation.Command, resumeToken: requestChecksum },
      '{"ok":true,"result":1}',
      'exact',
    );
  const retry = Buffer.alloc(16, 0x5a);

  it('gives a reply whose entry kept no checksum the retry’s checksum_body, resealed', () => {
    const answered = answeringChecksum(reply(Buffer.alloc(16)), retry);
    expect(Buffer.from(decodeHeader(answered).resumeToken)).toEqual(retry);
  });

  it('sends a reply that kept its checksum as cached, the same buffer', () => {
    const kept = reply(Buffer.alloc(16, 1));
    expect(answeringChecksum(kept, retry)).toBe(kept);
  });
});
