export { LocalTailDivergedError } from './local-tail-diverged.error';
export {
  type FollowedStream,
  type LocalCopy,
  StreamFollower,
  type StreamFollowerOptions,
} from './stream-follower';
