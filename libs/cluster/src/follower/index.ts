export { LocalTailDivergedError } from './local-tail-diverged.error';
export { type FollowedStream, type LocalCopy, StreamFollower } from './stream-follower';
