import { type Frame } from '@once/protocol';
import { type Registration } from './session-identity';

const RESUME_TOKEN_HEX = /^[0-9a-fA-F]{32}$/;

/**
 * The fields of an OK REGISTER reply's body
 * (`{"userId","epoch","watermark","resumeToken"}`), or undefined when the body
 * lacks one or holds one out of range: the epoch is an op, never 0; the token
 * is 16 bytes in hex.
 */
export function parseRegistration(frame: Frame): Registration | undefined {
  let body: unknown;
  try {
    body = JSON.parse(frame.body.toString('utf8'));
  } catch {
    return undefined;
  }
  const { userId, epoch, watermark, resumeToken } = (body ?? {}) as Record<string, unknown>;
  if (
    !isCount(userId) ||
    !isCount(epoch) ||
    epoch === 0 ||
    !isCount(watermark) ||
    typeof resumeToken !== 'string' ||
    !RESUME_TOKEN_HEX.test(resumeToken)
  ) {
    return undefined;
  }
  return { userId, epoch, watermark, resumeToken: Buffer.from(resumeToken, 'hex') };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
