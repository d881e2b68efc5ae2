import { readClientId, writeClientId } from '@once/protocol';
import fc from 'fast-check';
import { writeValidatedClientId } from './client-id-bytes';

describe('writeValidatedClientId', () => {
  it('writes exactly what the protocol writeClientId writes', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.nat({ max: 8 }),
        (raw, offset) => {
          const id = Buffer.from(raw).toString('hex');
          const ours = Buffer.alloc(32, 0xee);
          const theirs = Buffer.alloc(32, 0xee);
          writeValidatedClientId(ours, offset, id);
          writeClientId(theirs, offset, id);
          expect(ours).toEqual(theirs);
          expect(readClientId(ours, offset)).toBe(id);
        },
      ),
    );
  });
});
